import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ConsumerLagMetrics } from './consumer-lag.js';
import { errorRecordCounter } from './error-record-counter.js';

/** Latency buckets in seconds for activations and their runtime overhead (1 ms … 60 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.015, 0.025, 0.05, 0.06, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The activator's Prometheus metrics, served on its ops listener (`/metrics`). Names are a
 * compatibility contract (dashboards and alerts use them; docs/operations.md lists them). Counters
 * tied to commits count once per commit (a retried commit that did not land counts nothing);
 * per-process values reset on restart — telemetry, never a ledger or a decision input.
 *
 * Identity: `agents_intents_emitted_total` (counted at commit) equals
 * `agents_intents_published_total` (counted when the stream acknowledged the publish) summed over
 * the cluster, once outboxes are published. A persistent excess of emitted over published means
 * committed intents are not reaching the effector.
 */
export class RuntimeMetrics {
  readonly registry = new Registry();

  /** Elements applied, by agent and outcome status (completed, suspended, failed, timed_out, orphaned). */
  readonly activations = new Counter({
    name: 'agents_activations_total',
    help: 'Inbox elements committed, by agent and activation status',
    labelNames: ['agent', 'status'] as const,
    registers: [this.registry],
  });

  /** Error records committed by the activator (or published for an unhosted direct element), by agent and reason. */
  readonly errorRecords = errorRecordCounter(this.registry);

  /** Intents (tool intents and approval requests) committed in outboxes, by agent: counted once per commit. */
  readonly intentsEmitted = new Counter({
    name: 'agents_intents_emitted_total',
    help: 'Intents and approval requests committed in outboxes, by agent',
    labelNames: ['agent'] as const,
    registers: [this.registry],
  });

  /**
   * Intents acknowledged by the intents stream after their commit, by agent. A republish after a
   * crash or a lost partition counts in the process that republished (deduplicated downstream).
   */
  readonly intentsPublished = new Counter({
    name: 'agents_intents_published_total',
    help: 'Intents and approval requests published from committed outboxes, by agent',
    labelNames: ['agent'] as const,
    registers: [this.registry],
  });

  /** Activations that ended suspended (waiting on intents), by agent. */
  readonly suspensions = new Counter({
    name: 'agents_suspensions_total',
    help: 'Activations that suspended on intents or approvals, by agent',
    labelNames: ['agent'] as const,
    registers: [this.registry],
  });

  /** Results and approvals no suspension was waiting for (recorded as orphaned_result), by agent. */
  readonly orphanedResults = new Counter({
    name: 'agents_orphaned_results_total',
    help: 'Results or approvals that matched no pending intent, by agent',
    labelNames: ['agent'] as const,
    registers: [this.registry],
  });

  /** Long-term records flushed before commits, by agent and outcome (ok, failed). */
  readonly longTermUpserts = new Counter({
    name: 'agents_longterm_upserts_total',
    help: 'Long-term memory records flushed before commits, by agent and outcome',
    labelNames: ['agent', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Partition leases taken (acquired) or given up (released, by reason: rebalance, lost, reset, shutdown). */
  readonly leaseMoves = new Counter({
    name: 'agents_lease_moves_total',
    help: 'Partition leases acquired or released by this activator, by direction and reason',
    labelNames: ['direction', 'reason'] as const,
    registers: [this.registry],
  });

  /** Partitions this activator consumes now. */
  readonly ownedPartitions = new Gauge({
    name: 'agents_owned_partitions',
    help: 'Inbox partitions this activator currently consumes',
    registers: [this.registry],
  });

  /** Wall time of processing one inbox element (read, activation, flush, commit, publish), by agent and status. */
  readonly activationLatency = new Histogram({
    name: 'agents_activation_duration_seconds',
    help: 'Time to process one inbox element end to end, by agent and status',
    labelNames: ['agent', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /** The same minus the provider's model time: what the runtime itself costs per element. */
  readonly overheadLatency = new Histogram({
    name: 'agents_activation_overhead_seconds',
    help: 'Time to process one inbox element minus model provider time, by agent and status',
    labelNames: ['agent', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  /** Working-memory size after each activation. */
  readonly workingMemoryBytes = new Histogram({
    name: 'agents_working_memory_bytes',
    help: 'Working-memory size of a key after an activation, in bytes, by agent',
    labelNames: ['agent'] as const,
    buckets: [0, 256, 1024, 4096, 16_384, 65_536, 262_144, 524_288, 786_432, 1_048_576],
    registers: [this.registry],
  });

  /** Lag of the partition consumers this activator owns (sampled every `ops.lagSampleMs`). */
  readonly consumerLag = new ConsumerLagMetrics(this.registry);

  /** Model calls by agent and whether the replay cache answered. */
  readonly modelCalls = new Counter({
    name: 'agents_model_calls_total',
    help: 'Model calls made by activations, by agent and cache outcome (hit | miss)',
    labelNames: ['agent', 'cache'] as const,
    registers: [this.registry],
  });

  /**
   * OpenTelemetry GenAI `gen_ai.client.token.usage` (histogram, unit `{token}`): tokens of each
   * provider call (replay-cache answers cost nothing and are not recorded), by token type.
   */
  readonly genAiTokenUsage = new Histogram({
    name: 'gen_ai_client_token_usage',
    help: 'Tokens used by model provider calls (OpenTelemetry gen_ai.client.token.usage), by agent, model and token type (input | output)',
    labelNames: ['agent', 'gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'gen_ai_token_type'] as const,
    buckets: [1, 4, 16, 64, 256, 1_024, 4_096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864],
    registers: [this.registry],
  });

  /** OpenTelemetry GenAI `gen_ai.client.operation.duration` (histogram, seconds): each provider call. */
  readonly genAiOperationDuration = new Histogram({
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'Duration of model provider calls (OpenTelemetry gen_ai.client.operation.duration), by agent and model',
    labelNames: ['agent', 'gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'] as const,
    buckets: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
    registers: [this.registry],
  });

  /** What committed activations paid their providers, priced by `prices` (USD). */
  readonly modelCostUsd = new Counter({
    name: 'agents_model_cost_usd_total',
    help: 'Model cost of committed activations in USD by agent and model, from the configured price table',
    labelNames: ['agent', 'model'] as const,
    registers: [this.registry],
  });

  /** Redelivered elements recognised as already applied. */
  readonly duplicates = new Counter({
    name: 'agents_duplicate_elements_total',
    help: 'Inbox elements recognised as already applied (redeliveries)',
    registers: [this.registry],
  });

  /** Revision CAS failures at commit. */
  readonly commitConflicts = new Counter({
    name: 'agents_commit_conflicts_total',
    help: 'State commits that lost the revision compare-and-set',
    registers: [this.registry],
  });

  /** Commits refused because a newer owner epoch holds the key. */
  readonly fenced = new Counter({
    name: 'agents_fenced_total',
    help: 'Elements refused because a newer owner epoch wrote the key',
    registers: [this.registry],
  });

  /**
   * Elements held and retried in place, by error class. `StateSchemaFromFuture` here means a key
   * written by a newer binary is waiting for this one to be rolled forward.
   */
  readonly retries = new Counter({
    name: 'agents_element_retries_total',
    help: 'Elements held and retried in place, by error class',
    labelNames: ['error'] as const,
    registers: [this.registry],
  });

  /** How long each hold of a key lasts before its retry (agent failures and infrastructure alike). */
  readonly retryDelay = new Histogram({
    name: 'agents_retry_delay_seconds',
    help: 'Backoff delay of each hold of a key before it is retried, by agent and error class',
    labelNames: ['agent', 'error'] as const,
    buckets: [0, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  /** Where {@link heldKeys} reads its value at scrape time (the activator's observer sets it). */
  heldKeysSource: () => number = () => 0;

  /** Keys held right now, waiting for their retry, read at scrape time. */
  readonly heldKeys = new Gauge({
    name: 'agents_held_keys',
    help: 'Keys currently held in backoff, waiting to retry an element',
    registers: [this.registry],
    collect: () => {
      this.heldKeys.set(this.heldKeysSource());
    },
  });

  /** Where the actor-cache gauges read their values at scrape time (the activator sets it). */
  actorCacheSource: () => { readonly entries: number; readonly bytes: number } = () => ({ entries: 0, bytes: 0 });

  /** Committed documents held in the activator's cache, read at scrape time. */
  readonly actorCacheEntries = new Gauge({
    name: 'agents_actor_cache_entries',
    help: 'Committed state documents held in the actor cache',
    registers: [this.registry],
    collect: () => {
      this.actorCacheEntries.set(this.actorCacheSource().entries);
    },
  });

  /** Encoded bytes of the documents in the activator's cache (bounded by activator.cacheMaxBytes), read at scrape time. */
  readonly actorCacheBytes = new Gauge({
    name: 'agents_actor_cache_bytes',
    help: 'Encoded bytes of the state documents held in the actor cache (bounded by activator.cacheMaxBytes)',
    registers: [this.registry],
    collect: () => {
      this.actorCacheBytes.set(this.actorCacheSource().bytes);
    },
  });

  /** Where {@link agentWorkers} reads its values at scrape time: live worker threads by worker-isolated agent (the activator sets it). */
  agentWorkersSource: () => ReadonlyMap<string, number> = () => new Map();

  /** Worker threads running worker-isolated agents (`isolation: worker`), by agent, read at scrape time. */
  readonly agentWorkers = new Gauge({
    name: 'agents_agent_workers',
    help: 'Live worker threads of worker-isolated agents in this activator, by agent',
    labelNames: ['agent'] as const,
    registers: [this.registry],
    collect: () => {
      this.agentWorkers.reset();
      for (const [agent, count] of this.agentWorkersSource()) this.agentWorkers.set({ agent }, count);
    },
  });

  /**
   * Worker threads of worker-isolated agents that ended mid-attempt: `timeout` (terminated when the
   * attempt outran its timeout; the attempt recorded `activation_timeout`) or `crash` (the thread
   * died; the attempt recorded `activation_error`). Each is replaced on demand.
   */
  readonly workerTerminations = new Counter({
    name: 'agents_worker_terminations_total',
    help: 'Worker threads of worker-isolated agents ended mid-attempt, by agent and cause (timeout, crash)',
    labelNames: ['agent', 'cause'] as const,
    registers: [this.registry],
  });

  /** Keys whose working memory crossed the soft cap (75 % of 1 MiB). */
  readonly softCapWarnings = new Counter({
    name: 'agents_memory_soft_cap_warnings_total',
    help: 'Activations whose working memory crossed the soft cap',
    registers: [this.registry],
  });

  /** Committed state document size. */
  readonly documentBytes = new Histogram({
    name: 'agents_state_document_bytes',
    help: 'Size of committed state documents in bytes',
    buckets: [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304],
    registers: [this.registry],
  });

  constructor(options: { readonly defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
