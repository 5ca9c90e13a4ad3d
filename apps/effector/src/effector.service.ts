import { setMaxListeners } from 'node:events';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { JsMsg } from '@nats-io/jetstream';
import { backoffDelay, sleep, type AnyToolDefinition } from '#core';
import { RUNTIME_CONFIG, type RuntimeConfig } from '#config';
import type { Topology } from '#routing';
import { serviceLogsAt } from '#telemetry';
import { EntityPauses, fromMsgHdrs, KeyedConsumer, NatsService, PROVISIONING, TOPOLOGY, type Intake, type KeyedConsumerHandler, type ProvisionReport } from '#transport';
import { ENTITY_PAUSES, INTENT_PROCESSOR, TOOL_CATALOG } from './effector.tokens.js';
import { EffectorConfigError } from './effector-errors.js';
import { decodeDelivery } from './intent-delivery.js';
import { EFFECTOR_CONSUMER, ensureIntentConsumer } from './intent-consumer.js';
import type { IntentOutcome } from './intent-outcome.js';
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

/** One intent delivery on its way through the engine. */
type IntentWork = ReturnType<typeof decodeDelivery>;

/**
 * The effector: pulls tool intents from the shared durable consumer `effector` on the services'
 * consumer engine ({@link KeyedConsumer}, pulling only for free slots) and runs each through the
 * {@link IntentProcessor}, up to `effector.maxInFlight` at once, one at a time per intent id (a
 * duplicate waits for the first copy, then finds it done). Held intents — running tools, waits on
 * another replica's claim, store outages — are kept from redelivery with `working()` every third
 * of the ack wait.
 *
 * On SIGTERM it stops pulling, ends waits and releases claims whose tool has not started, lets
 * running tools finish for up to 10 s, then abandons the rest to their leases (another replica
 * re-executes them after expiry); whatever it did not settle is redelivered. A crash (SIGKILL)
 * leaves the same state minus the releases: unstarted claims then wait out their lease too.
 */
@Injectable()
export class EffectorService implements OnApplicationBootstrap, BeforeApplicationShutdown, KeyedConsumerHandler<IntentWork, IntentOutcome> {
  private readonly logger = new Logger(EffectorService.name);
  /** Whether the per-message debug line is written (read once: the default `info` level never formats it). */
  private readonly debugLines = serviceLogsAt('debug');
  private engine: KeyedConsumer<IntentWork, IntentOutcome> | undefined;
  private scope: ProcessScope | undefined;
  private ready = false;

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    @Inject(TOPOLOGY) private readonly topology: Topology,
    @Inject(NatsService) private readonly nats: NatsService,
    @Inject(PROVISIONING) private readonly provisioning: ProvisionReport,
    @Inject(TOOL_CATALOG) private readonly tools: Map<string, AnyToolDefinition>,
    @Inject(INTENT_PROCESSOR) private readonly processor: IntentProcessor,
    @Inject(ENTITY_PAUSES) private readonly pauses: EntityPauses,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const warning of this.provisioning.warnings) this.logger.warn(warning);
    const stream = this.topology.streams.intents.name;
    const filterSubject = intentsFilter(this.topology);
    const effector = this.config.effector;
    await this.ensureConsumer();
    const engine = new KeyedConsumer<IntentWork, IntentOutcome>(
      {
        js: this.nats.js,
        stream,
        consumerName: EFFECTOR_CONSUMER,
        pull: { kind: 'slots', maxInFlight: effector.maxInFlight, expiresMs: FETCH_EXPIRES_MS, onPullError: (error, failures) => this.pullFailed(error, failures) },
        heartbeatMs: Math.max(200, Math.floor(effector.ackWaitMs / 3)),
        onLoopError: (error) => this.logger.error(`pulling intents stopped: ${error.message}`),
      },
      this,
    );
    // Every intent in flight listens on both signals (waits, tool runs) and removes its listener when done.
    setMaxListeners(0, engine.draining, engine.halted);
    this.engine = engine;
    this.scope = { stopping: engine.draining, halted: engine.halted };
    await engine.start();
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
    await this.engine?.stop(DRAIN_MS);
    await this.pauses.close();
    this.logger.log('effector stopped');
  }

  intake(msg: JsMsg): Intake<IntentWork> {
    const decoded = decodeDelivery({
      subject: msg.subject,
      data: msg.data,
      headers: fromMsgHdrs(msg.headers),
      publishedAtMs: Number(msg.timestampNanos / 1_000_000n),
      deliveries: msg.info.deliveryCount,
    });
    // One at a time per intent id on this replica; unreadable messages go on their own.
    const lane = decoded.kind === 'intent' && decoded.intent.intentId !== '' ? `intent:${decoded.intent.intentId}` : `message:${msg.seq}`;
    return { kind: 'handle', lane, work: decoded };
  }

  handle(work: IntentWork): Promise<IntentOutcome> {
    return this.processor.process(work, this.scope as ProcessScope);
  }

  settle(msg: JsMsg, outcome: IntentOutcome): void {
    const settled = settleIntentMessage(msg, outcome);
    if (this.debugLines) this.logger.debug(`intent message ${msg.seq}: ${outcome.kind}, ${settled}`);
  }

  failed(msg: JsMsg, error: Error): void {
    this.logger.error(`intent message ${msg.seq} failed unexpectedly and is left for redelivery: ${error.message}`);
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

  /** A failed pull: back off, then re-create the consumer (an operator may have deleted it; idempotent). */
  private async pullFailed(error: Error, failures: number): Promise<void> {
    const delay = backoffDelay(EffectorBackoff.pull, failures - 1, Math.random);
    this.logger.warn(`pulling intents failed (attempt ${failures}, retry in ${delay} ms): ${error.message}`);
    const engine = this.engine;
    if (engine !== undefined) await sleep(timers, delay, engine.draining);
    await this.ensureConsumer().catch((e: unknown) => this.logger.warn(`re-creating consumer ${EFFECTOR_CONSUMER} failed: ${(e as Error).message}`));
  }
}

/** `<prefix>.intents.>`: the tool-intent subjects of the intents stream (approval requests excluded). */
function intentsFilter(topology: Topology): string {
  const filter = topology.streams.intents.subjects.find((s) => s === `${topology.prefix}.intents.>`);
  if (filter === undefined) throw new EffectorConfigError(`the intents stream of prefix ${topology.prefix} captures no ${topology.prefix}.intents.> subjects`);
  return filter;
}
