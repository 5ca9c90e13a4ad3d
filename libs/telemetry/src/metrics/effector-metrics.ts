import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ConsumerLagMetrics } from './consumer-lag.js';
import { errorRecordCounter } from './error-record-counter.js';

/**
 * The effector's Prometheus metrics. Names are a compatibility contract (dashboards and alerts
 * use them). Values count attempts, not effects: a redelivered intent that is republished counts
 * as `deduped` again, and a crash between a tool's return and the count loses the count — these
 * are telemetry, never a ledger or a decision input. Served on the ops listener (`/metrics`).
 */
export class EffectorMetrics {
  readonly registry = new Registry();

  /** Results published, by status (ok, error, expired, rejected); republished stored results are not counted here. */
  readonly results = new Counter({
    name: 'agents_effector_results_total',
    help: 'Tool results recorded and published by the effector, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  /** Deliveries of an already completed intent: the stored result was republished, nothing ran. */
  readonly deduped = new Counter({
    name: 'agents_effector_deduped_total',
    help: 'Intents found completed in the dedup store and republished without execution',
    registers: [this.registry],
  });

  /** Claims found held by a live lease elsewhere (each poll counts); the delivery waits, never skips. */
  readonly inFlightWaits = new Counter({
    name: 'agents_effector_in_flight_waits_total',
    help: 'Claim attempts that found the intent in flight under another live lease',
    registers: [this.registry],
  });

  /** Completions refused because the claim moved (lease expired mid-run and another replica took over). */
  readonly claimsLost = new Counter({
    name: 'agents_effector_claims_lost_total',
    help: 'Completions refused because the claim was no longer held; nothing was published or acked',
    registers: [this.registry],
  });

  /** Claims given back at shutdown before their tool started. */
  readonly claimsReleased = new Counter({
    name: 'agents_effector_claims_released_total',
    help: 'Claims released before their tool started (shutdown)',
    registers: [this.registry],
  });

  /** Intents refused before execution with an error record, by reason (bad_signature, unknown_signing_key, unsigned_intent, malformed_input). */
  readonly deadLetters = new Counter({
    name: 'agents_effector_dead_letters_total',
    help: 'Intents refused with an error record instead of a result, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** Error records published refusing intents, by agent and reason (the cluster-wide `agents_error_records_total`). */
  readonly errorRecords = errorRecordCounter(this.registry);

  /** Lag of the effector's intents consumer (sampled every `ops.lagSampleMs`). */
  readonly consumerLag = new ConsumerLagMetrics(this.registry);

  /** Unsigned intents accepted under the permissive verification mode; keep at 0 before switching to require. */
  readonly unsignedAccepted = new Counter({
    name: 'agents_effector_unsigned_accepted_total',
    help: 'Unsigned intents accepted under permissive verification',
    registers: [this.registry],
  });

  /** Result publishes that exhausted their retries (the intent is redelivered and republished later). */
  readonly publishFailures = new Counter({
    name: 'agents_effector_publish_failures_total',
    help: 'Result or error-record publishes that exhausted their retries',
    registers: [this.registry],
  });

  /** Dedup-store operations retried in place, by error class. */
  readonly storeRetries = new Counter({
    name: 'agents_effector_store_retries_total',
    help: 'Dedup store operations retried in place, by error class',
    labelNames: ['error'] as const,
    registers: [this.registry],
  });

  /** Wall time of tool executions (all attempts of one intent), by tool. */
  readonly toolLatency = new Histogram({
    name: 'agents_effector_tool_duration_seconds',
    help: 'Duration of tool executions by the effector, by tool',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.025, 0.1, 0.25, 1, 2.5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  constructor(options: { readonly defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
