import type { ActorRuntimeDeps, StateStore } from '#core';
import type { RuntimeMetrics, TraceScopes, TraceStepsMode } from '#telemetry';
import { FailpointStateStore, type Failpoint } from './failpoint-state-store.js';
import { LeaseGuardedStateStore } from './lease-guarded-state-store.js';
import { tracedLongTermStore } from './telemetry/traced-long-term-store.js';
import { TracedOutboxPublisher } from './telemetry/traced-outbox-publisher.js';
import { TracedStateStore } from './telemetry/traced-state-store.js';
import { TracingObserver } from './telemetry/tracing-observer.js';

/** What the activator wraps around the runtime's ports. */
export interface CommitPathOptions {
  /** `AGENTS_FAILPOINTS` (tests): SIGKILL right before or after the Nth commit; empty in production. */
  readonly failpoints: readonly Failpoint[];
  /** True while this member holds a locally valid lease on `stateKey`'s partition; absent = unguarded (tests). */
  readonly holdsLease?: (stateKey: string) => boolean;
  readonly metrics: RuntimeMetrics;
  /** The deployment's subject prefix (intents are recognised by subject). */
  readonly prefix: string;
  /** Where the tracing wrappers find the running activation's span: the traced runtime's own. */
  readonly scopes: TraceScopes;
  /**
   * Whether this process exports traces (`currentTracing().enabled`). Off, no span can ever be
   * open, so the store and observer wrappers that only look for one are left out (each was a
   * closure and a lookup per call for nothing); the publisher and long-term wrappers stay for
   * their metrics.
   */
  readonly tracing: boolean;
  /** How a recording activation's state and outbox steps are recorded (`Tracing.steps`, `AGENTS_TRACE_STEPS`). */
  readonly steps: TraceStepsMode;
}

/**
 * The activator's commit path, composed in one place, outermost first:
 *
 * - store: tracing (`state.load`, `state.commit` steps) → lease guard (no write without a locally
 *   valid lease; nats-design §7.4) → failpoints (only when configured) → the KV store;
 * - publisher: tracing and intent metrics (the `outbox.publish` step) → the JetStream publisher;
 * - long-term tier: tracing and flush metrics → the memory-store client;
 * - observer: model-call spans and events → the metrics observer.
 *
 * With tracing off the store is not wrapped for tracing and the observer is the metrics observer
 * itself.
 *
 * Every wrapper passes each call through exactly once and never retries or swallows: what the
 * runtime decides on redelivery, replay and crash is the inner port's behaviour unchanged. The
 * lease guard refuses before the write reaches the server (`LeaseLapsed`, retried in place until
 * the ownership keep-alive drops the partition); a failpoint kills the process with nothing acked.
 */
export function composeCommitPath(deps: ActorRuntimeDeps, options: CommitPathOptions): ActorRuntimeDeps {
  let store: StateStore = deps.store;
  if (options.failpoints.length > 0) store = new FailpointStateStore(store, options.failpoints);
  if (options.holdsLease !== undefined) store = new LeaseGuardedStateStore(store, options.holdsLease);
  return {
    ...deps,
    store: options.tracing ? new TracedStateStore(store, options.scopes, options.steps) : store,
    publisher: new TracedOutboxPublisher(deps.publisher, options.metrics, options.prefix, options.scopes, options.steps),
    ...(options.tracing ? { observer: new TracingObserver(deps.observer, deps.provider.name, options.scopes) } : {}),
    ...(deps.longterm !== undefined ? { longterm: { ...deps.longterm, store: tracedLongTermStore(deps.longterm.store, options.metrics, options.scopes) } } : {}),
  };
}
