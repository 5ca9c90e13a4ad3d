import { setMaxListeners } from 'node:events';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { backoffDelay, KeyMailbox, sleep, type AnyToolDefinition } from '#core';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { EntityPauses, fromMsgHdrs, NatsService, PROVISIONING, TOPOLOGY, type ProvisionReport } from '#transport';
import { ENTITY_PAUSES, INTENT_PROCESSOR, TOOL_CATALOG } from './effector.tokens.js';
import { EffectorConfigError } from './effector-errors.js';
import { decodeDelivery } from './intent-delivery.js';
import { EFFECTOR_CONSUMER, ensureIntentConsumer } from './intent-consumer.js';
import type { IntentProcessor, ProcessScope } from './intent-processor.js';
import { settleIntentMessage } from './intent-settlement.js';
import { EffectorBackoff } from './retry-policy.js';

/** How long a stopping effector lets running tools finish before abandoning them to lease expiry. */
const DRAIN_MS = 10_000;

/** How long one pull waits for intents before asking again. */
const FETCH_EXPIRES_MS = 5_000;

/** Unacknowledged intents across all replicas, per intent this replica may run at once. */
const ACK_PENDING_PER_SLOT = 16;

const timers = {
  setTimeout: (callback: () => void, ms: number) => {
    const handle = setTimeout(callback, ms);
    return () => clearTimeout(handle);
  },
};

/** A delivered intent being processed; a redelivery of it replaces `msg`, so settling uses the newest handle. */
interface Held {
  msg: JsMsg;
}

/**
 * The effector: pulls tool intents from the shared durable consumer `effector` and runs each
 * through the {@link IntentProcessor}, up to `effector.maxInFlight` at once, one at a time per
 * intent id (a duplicate waits for the first copy, then finds it done). Held intents — running
 * tools, waits on another replica's claim, store outages — are kept from redelivery with
 * `working()` every third of the ack wait.
 *
 * On SIGTERM it stops pulling, ends waits and releases claims whose tool has not started, lets
 * running tools finish for up to 10 s, then abandons the rest to their leases (another replica
 * re-executes them after expiry); whatever it did not settle is redelivered. A crash (SIGKILL)
 * leaves the same state minus the releases: unstarted claims then wait out their lease too.
 */
@Injectable()
export class EffectorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EffectorService.name);
  private readonly mailbox = new KeyMailbox();
  private readonly inFlight = new Map<number, Held>();
  private readonly jobs = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly halt = new AbortController();
  private readonly scope: ProcessScope = { stopping: this.stopping.signal, halted: this.halt.signal };
  private slotWaiter: (() => void) | undefined;
  private fetching: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private ready = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(PROVISIONING) private readonly provisioning: ProvisionReport,
    @Inject(TOOL_CATALOG) private readonly tools: Map<string, AnyToolDefinition>,
    @Inject(INTENT_PROCESSOR) private readonly processor: IntentProcessor,
    @Inject(ENTITY_PAUSES) private readonly pauses: EntityPauses,
  ) {
    // Every intent in flight listens on both signals (waits, tool runs) and removes its listener when done.
    setMaxListeners(0, this.stopping.signal, this.halt.signal);
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const warning of this.provisioning.warnings) this.logger.warn(warning);
    const stream = this.topology.streams.intents.name;
    const filterSubject = intentsFilter(this.topology);
    const effector = this.config.effector;
    await this.ensureConsumer();
    const consumer = await this.nats.js.consumers.get(stream, EFFECTOR_CONSUMER);
    this.heartbeat = setInterval(() => this.keepAlive(), Math.max(200, Math.floor(effector.ackWaitMs / 3)));
    this.heartbeat.unref();
    this.loop = this.pull(consumer);
    this.ready = true;
    const tools = [...this.tools.values()].filter((t) => t.sideEffect).map((t) => t.name);
    this.logger.log(
      `effector consuming ${stream} (${filterSubject}) as ${EFFECTOR_CONSUMER}, up to ${effector.maxInFlight} intents in flight; ` +
        `verification ${effector.verification}; tools: ${tools.join(', ') || '(none)'}`,
    );
  }

  /** True while the effector is pulling intents. */
  get isReady(): boolean {
    return this.ready;
  }

  /** Runs before the NATS connection drains (its own shutdown hook), so releases and results still go out. */
  async beforeApplicationShutdown(): Promise<void> {
    this.ready = false;
    this.stopping.abort();
    this.fetching?.stop();
    this.wakePuller();
    await this.loop;
    const running = Promise.all([...this.jobs]);
    const drainWindow = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_MS).unref());
    await Promise.race([running, drainWindow]);
    this.halt.abort();
    await running;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    await this.pauses.close();
    this.logger.log('effector stopped');
  }

  private async ensureConsumer(): Promise<void> {
    const effector = this.config.effector;
    await ensureIntentConsumer(this.nats.jsm, {
      stream: this.topology.streams.intents.name,
      filterSubject: intentsFilter(this.topology),
      ackWaitMs: effector.ackWaitMs,
      maxAckPending: effector.maxInFlight * ACK_PENDING_PER_SLOT,
    });
  }

  /** Pulls as many intents as there are free slots, until stopping. */
  private async pull(consumer: Consumer): Promise<void> {
    let failures = 0;
    while (!this.stopping.signal.aborted) {
      const free = this.config.effector.maxInFlight - this.inFlight.size;
      if (free <= 0) {
        await new Promise<void>((resolve) => (this.slotWaiter = resolve));
        continue;
      }
      try {
        const batch = await consumer.fetch({ max_messages: free, expires: FETCH_EXPIRES_MS });
        this.fetching = batch;
        if (this.stopping.signal.aborted) batch.stop();
        for await (const msg of batch) {
          // Taken after stop was asked: left unacknowledged, redelivered after the ack wait.
          if (!this.stopping.signal.aborted) this.dispatch(msg);
        }
        failures = 0;
      } catch (error) {
        if (this.stopping.signal.aborted) break;
        const delay = backoffDelay(EffectorBackoff.pull, failures, Math.random);
        failures += 1;
        this.logger.warn(`pulling intents failed (attempt ${failures}, retry in ${delay} ms): ${(error as Error).message}`);
        await sleep(timers, delay, this.stopping.signal);
        // The consumer may have been deleted by an operator; recreating it is idempotent.
        await this.ensureConsumer().catch((e: unknown) => this.logger.warn(`re-creating consumer ${EFFECTOR_CONSUMER} failed: ${(e as Error).message}`));
      } finally {
        this.fetching = undefined;
      }
    }
  }

  private dispatch(msg: JsMsg): void {
    const held = this.inFlight.get(msg.seq);
    if (held !== undefined) {
      // A redelivery of an intent still being processed: settle through the newest handle.
      held.msg = msg;
      return;
    }
    const decoded = decodeDelivery({
      subject: msg.subject,
      data: msg.data,
      headers: fromMsgHdrs(msg.headers),
      publishedAtMs: Number(msg.timestampNanos / 1_000_000n),
      deliveries: msg.info.deliveryCount,
    });
    // One at a time per intent id on this replica; unreadable messages go on their own.
    const lane = decoded.kind === 'intent' && decoded.intent.intentId !== '' ? `intent:${decoded.intent.intentId}` : `message:${msg.seq}`;
    const entry: Held = { msg };
    this.inFlight.set(msg.seq, entry);
    const job: Promise<void> = this.mailbox
      .run(lane, () => this.processor.process(decoded, this.scope))
      .then((outcome) => {
        const settled = settleIntentMessage(entry.msg, outcome);
        this.logger.debug(`intent message ${msg.seq}: ${outcome.kind}, ${settled}`);
      })
      .catch((error: unknown) => {
        this.logger.error(`intent message ${msg.seq} failed unexpectedly and is left for redelivery: ${(error as Error).message}`);
      })
      .finally(() => {
        this.inFlight.delete(msg.seq);
        this.jobs.delete(job);
        this.wakePuller();
      });
    this.jobs.add(job);
  }

  private wakePuller(): void {
    const waiter = this.slotWaiter;
    this.slotWaiter = undefined;
    waiter?.();
  }

  private keepAlive(): void {
    for (const held of this.inFlight.values()) held.msg.working();
  }
}

/** `<prefix>.intents.>`: the tool-intent subjects of the intents stream (approval requests excluded). */
function intentsFilter(topology: Topology): string {
  const filter = topology.streams.intents.subjects.find((s) => s === `${topology.prefix}.intents.>`);
  if (filter === undefined) throw new EffectorConfigError(`the intents stream of prefix ${topology.prefix} captures no ${topology.prefix}.intents.> subjects`);
  return filter;
}
