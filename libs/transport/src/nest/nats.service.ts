import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import { bindBucket } from '../bind-bucket.js';
import { connectNats } from '../nats-connection.js';
import { PubAckPipeline } from '../pub-ack-pipeline.js';

/** Injection token of the service's NATS client name (e.g. `activator`). */
export const NATS_CLIENT_NAME = Symbol.for('nats-agents.nats-client-name');

/**
 * The service's one NATS connection and its JetStream handles. Connects in `connect()` (called by
 * the service's start-up hook, so start-up order is explicit) and drains on shutdown, so
 * publishes in flight are flushed before the process exits.
 */
@Injectable()
export class NatsService implements OnApplicationShutdown {
  private readonly logger = new Logger(NatsService.name);
  private connection: NatsConnection | undefined;
  private client: JetStreamClient | undefined;
  private manager: JetStreamManager | undefined;
  private pipeline: PubAckPipeline | undefined;
  /** One binding per bucket; the promise itself is kept, so callers racing on a first bind share its stream-info read. */
  private readonly buckets = new Map<string, Promise<KV>>();

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(NATS_CLIENT_NAME) private readonly clientName: string,
  ) {}

  /** Connects once; later calls return the same connection. */
  async connect(): Promise<NatsConnection> {
    if (this.connection !== undefined) return this.connection;
    const nc = await connectNats(this.config.nats, this.clientName);
    this.connection = nc;
    this.client = jetstream(nc, { timeout: this.config.nats.requestTimeoutMs });
    this.manager = await jetstreamManager(nc, { timeout: this.config.nats.requestTimeoutMs });
    this.pipeline = new PubAckPipeline(nc, { timeoutMs: this.config.nats.requestTimeoutMs, monotonicMs: () => performance.now() });
    this.logger.log(`connected to ${nc.getServer()} (server ${nc.info?.version ?? 'unknown'}, max_payload ${nc.info?.max_payload ?? 'unknown'})`);
    return nc;
  }

  get nc(): NatsConnection {
    if (this.connection === undefined) throw new Error('NATS is not connected yet');
    return this.connection;
  }

  get js(): JetStreamClient {
    if (this.client === undefined) throw new Error('NATS is not connected yet');
    return this.client;
  }

  get jsm(): JetStreamManager {
    if (this.manager === undefined) throw new Error('NATS is not connected yet');
    return this.manager;
  }

  /** The hot-path JetStream publisher (acknowledged publishes, pipelined over one reply subscription). */
  get acks(): PubAckPipeline {
    if (this.pipeline === undefined) throw new Error('NATS is not connected yet');
    return this.pipeline;
  }

  /** Opens (never creates) a KV bucket, with direct gets when its stream allows them ({@link bindBucket}); provisioning creates them. */
  bucket(name: string): Promise<KV> {
    let kv = this.buckets.get(name);
    if (kv === undefined) {
      kv = bindBucket(this.js, this.jsm, name);
      this.buckets.set(name, kv);
      // A failed bind is not kept: the next caller binds again.
      kv.catch(() => this.buckets.delete(name));
    }
    return kv;
  }

  async onApplicationShutdown(): Promise<void> {
    const nc = this.connection;
    if (nc === undefined || nc.isClosed()) return;
    try {
      await nc.drain();
    } catch (error) {
      this.logger.warn(`drain failed: ${(error as Error).message}`);
    } finally {
      // Waits still open after the drain can no longer be answered: their outcome is unknown.
      this.pipeline?.close();
    }
  }
}
