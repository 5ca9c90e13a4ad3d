import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The activator's Prometheus metrics. Names are a compatibility contract (dashboards and alerts
 * use them). Values are attempted, not committed: a retried element counts again — telemetry,
 * never a ledger or a decision input.
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

  /** Error records committed by the activator, by agent and reason. */
  readonly errorRecords = new Counter({
    name: 'agents_error_records_total',
    help: 'Error records committed by the activator, by agent and reason',
    labelNames: ['agent', 'reason'] as const,
    registers: [this.registry],
  });

  /** Model calls by agent and whether the replay cache answered. */
  readonly modelCalls = new Counter({
    name: 'agents_model_calls_total',
    help: 'Model calls made by activations, by agent and cache outcome (hit | miss)',
    labelNames: ['agent', 'cache'] as const,
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
