import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AgentDefinition } from '#core';
import { AGENT_CATALOG, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { currentTracing, type IngressMetrics } from '#telemetry';
import { acquirePartitionConsumer, NatsService, PROVISIONING, TOPOLOGY, type ProvisionReport } from '#transport';
import { ActiveStandby, type StandDownReason } from './active-standby.js';
import { IngestWorker } from './ingest-worker.js';
import { INGRESS_METRICS } from './ingress.tokens.js';

/** The ingest lease's key in `AGENTS_LEASES`: whoever holds it is the one replica consuming the ingest stream. */
export const INGRESS_LEASE_KEY = 'ingress';

/** How long a stopping ingress lets in-flight forwards finish before abandoning them. */
const DRAIN_MS = 10_000;

/** The monotonic clock and timers the lease runs on. */
const leaseClock = {
  monotonicMs: () => performance.now(),
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Ingress: validates everything published to the ingest stream and forwards it into the key's
 * inbox partition, or turns it into an error record with a reason (see `IngestWorker`).
 *
 * Several replicas may run; exactly one consumes (docs/decisions/0010). Every replica serves
 * HTTP, which only validates and stores into the ingest stream. Consuming needs the lease
 * `AGENTS_LEASES/ingress` (TTL = `activator.leaseTtlMs`): its holder consumes through the consumer
 * `ingress-e<epoch>`, created from the predecessor's ack floor, so messages the predecessor never
 * acknowledged are forwarded again in stream order under the same derived message ids (the inbox
 * stores them once). Standbys retry the lease every tick. A lost lease stops consuming at once; on
 * SIGTERM the active replica drains its in-flight forwards and releases the lease.
 */
@Injectable()
export class IngressService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IngressService.name);
  private lease: ActiveStandby | undefined;
  private worker: IngestWorker | undefined;
  private role: 'starting' | 'active' | 'standby' | 'stopped' = 'starting';

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(AGENT_CATALOG) private readonly agents: Map<string, AgentDefinition>,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(PROVISIONING) private readonly provisioning: ProvisionReport,
    @Inject(INGRESS_METRICS) private readonly metrics: IngressMetrics,
  ) {}

  /**
   * True once this replica knows its role — consuming the ingest stream, or standing by behind
   * the lease holder (standbys serve HTTP, so they are ready too) — and until it stops.
   */
  get isReady(): boolean {
    return this.role === 'active' || this.role === 'standby';
  }

  /** The ingest consumer this replica pulls from while it holds the lease (consumer lag), else undefined. */
  get ingestConsumer(): string | undefined {
    return this.role === 'active' ? this.worker?.consumerName : undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const warning of this.provisioning.warnings) this.logger.warn(warning);
    const holder = `${hostname()}-${process.pid}`;
    this.lease = new ActiveStandby({
      leases: await this.nats.bucket(this.topology.buckets.leases),
      key: INGRESS_LEASE_KEY,
      holder,
      ttlMs: this.config.activator.leaseTtlMs,
      clock: leaseClock,
      hooks: {
        activate: (epoch) => this.consume(epoch),
        deactivate: (reason) => this.stopConsuming(reason),
        standingBy: (current) => {
          this.role = 'standby';
          this.logger.log(`ingress standing by: ${INGRESS_LEASE_KEY} lease held by ${current ?? 'another replica'}; serving HTTP only`);
        },
      },
    });
    await this.lease.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.role = 'stopped';
    await this.lease?.stop();
  }

  private async consume(epoch: number): Promise<void> {
    const stream = this.topology.streams.ingest.name;
    const consumer = await acquirePartitionConsumer(this.nats.jsm, {
      stream,
      namePrefix: 'ingress',
      epoch,
      ackWaitMs: this.config.ingress.ackWaitMs,
      maxAckPending: this.config.ingress.maxAckPending,
    });
    const worker = new IngestWorker({
      stream,
      consumerName: consumer.name,
      ackWaitMs: this.config.ingress.ackWaitMs,
      batch: Math.min(256, this.config.ingress.maxAckPending),
      js: this.nats.js,
      acks: this.nats.acks,
      tracing: currentTracing()?.enabled === true,
      parentBased: currentTracing()?.parentBased === true,
      topology: this.topology,
      agents: this.agents,
      limits: this.config.ingress,
      metrics: this.metrics,
      mayForward: () => this.lease?.valid ?? false,
      onGap: () => this.lease?.reset(),
    });
    await worker.start();
    this.worker = worker;
    this.role = 'active';
    this.logger.log(
      `ingress consuming ${stream} from seq ${consumer.startSeq} (epoch ${epoch}${consumer.replaced.length > 0 ? `, took over from ${consumer.replaced.join(', ')}` : ''}); agents: ${[...this.agents.keys()].join(', ') || '(none)'}`,
    );
  }

  private async stopConsuming(reason: StandDownReason): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    if (reason !== 'shutdown') worker.abandon();
    await worker.stop(reason === 'shutdown' ? DRAIN_MS : 0);
    if (this.worker === worker) this.worker = undefined;
    if (this.role === 'active') this.role = 'standby';
    this.logger.log(`ingress stopped consuming (${reason})`);
  }
}
