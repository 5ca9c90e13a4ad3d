import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { backoffDelay, KeyMailbox, sleep, type AgentDefinition } from '#core';
import { AGENT_CATALOG, RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { acquirePartitionConsumer, fromMsgHdrs, NatsService, PROVISIONING, TOPOLOGY, type ProvisionReport } from '#transport';
import { carryOut } from './ingest-forwarder.js';
import { decideIngest, type IngestDecision } from './ingest-decision.js';

const timers = {
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/**
 * Ingress: validates everything published to the ingest stream and forwards it into the key's
 * inbox partition, or turns it into an error record with a reason. Per key, messages are
 * forwarded one at a time in stream order (so the inbox keeps each key's order); keys proceed
 * concurrently. A message is acked only after its forward or error record was acknowledged, so
 * a crash forwards it again under the same message id (deduplicated by the inbox stream). Bad
 * input never blocks the stream: it is acked once its error record is stored.
 */
@Injectable()
export class IngressService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IngressService.name);
  private readonly mailbox = new KeyMailbox();
  private readonly inFlight = new Map<number, JsMsg>();
  private readonly stopping = new AbortController();
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private ready = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(AGENT_CATALOG) private readonly agents: Map<string, AgentDefinition>,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(PROVISIONING) private readonly provisioning: ProvisionReport,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const warning of this.provisioning.warnings) this.logger.warn(warning);
    const memberId = `${hostname()}-${process.pid}`;
    const leases = await this.nats.bucket(this.topology.buckets.leases);
    const epoch = await leases.put('ingress', new TextEncoder().encode(memberId));
    const stream = this.topology.streams.ingest.name;
    const consumer = await acquirePartitionConsumer(this.nats.jsm, {
      stream,
      namePrefix: 'ingress',
      epoch,
      ackWaitMs: this.config.ingress.ackWaitMs,
      maxAckPending: this.config.ingress.maxAckPending,
    });
    this.messages = await (await this.nats.js.consumers.get(stream, consumer.name)).consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) this.dispatch(msg);
    })().catch((error: unknown) => {
      if (!this.stopping.signal.aborted) this.logger.error(`ingest loop failed: ${(error as Error).message}`);
    });
    this.heartbeat = setInterval(() => {
      for (const msg of this.inFlight.values()) msg.working();
    }, Math.max(1_000, Math.floor(this.config.ingress.ackWaitMs / 3)));
    this.heartbeat.unref();
    this.ready = true;
    this.logger.log(`ingress consuming ${stream} from seq ${consumer.startSeq}; agents: ${[...this.agents.keys()].join(', ') || '(none)'}`);
  }

  get isReady(): boolean {
    return this.ready;
  }

  async onApplicationShutdown(): Promise<void> {
    this.ready = false;
    this.messages?.stop();
    await this.loop;
    const drained = this.mailbox.drain();
    await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    this.stopping.abort();
    await drained;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
  }

  private dispatch(msg: JsMsg): void {
    if (this.inFlight.has(msg.seq)) {
      this.inFlight.set(msg.seq, msg);
      return;
    }
    this.inFlight.set(msg.seq, msg);
    const decision = decideIngest(
      { subject: msg.subject, data: msg.data, headers: fromMsgHdrs(msg.headers), ingestTimeMs: Number(msg.timestampNanos / 1_000_000n) },
      this.agents,
      this.topology,
      this.config.ingress,
    );
    // Order matters per key only; unreadable messages have no key and go on their own.
    const lane = decision.kind === 'forward' ? `${decision.agent}.${decision.token}` : `#${msg.seq}`;
    void this.mailbox
      .run(lane, () => this.forward(decision, msg.seq))
      .then((done) => {
        if (done) (this.inFlight.get(msg.seq) ?? msg).ack();
      })
      .finally(() => this.inFlight.delete(msg.seq));
  }

  /** Forwards with retries in place (holding the key's order); false when stopping first. */
  private async forward(decision: IngestDecision, seq: number): Promise<boolean> {
    const source = { stream: this.topology.streams.ingest.name, seq };
    for (let attempt = 0; !this.stopping.signal.aborted; attempt += 1) {
      try {
        await carryOut(this.nats.js, this.topology, decision, source, this.config.nats.requestTimeoutMs);
        if (decision.kind === 'reject') this.logger.warn(`ingest ${seq} refused: ${decision.reason}: ${decision.detail}`);
        return true;
      } catch (error) {
        const delay = backoffDelay({ baseMs: 100, maxMs: 10_000 }, attempt, Math.random);
        this.logger.warn(`ingest ${seq} not forwarded yet (attempt ${attempt + 1}, retry in ${delay} ms): ${(error as Error).message}`);
        await sleep(timers, delay, this.stopping.signal);
      }
    }
    return false;
  }
}
