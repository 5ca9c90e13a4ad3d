/**
 * Builds a {@link TracedActorRuntime} of one `echo` agent (it outputs the event text) over an
 * in-memory state store and a publisher that records what the commit publishes, composed exactly
 * as the activator composes its commit path. For the telemetry specs: spans, trace headers and
 * promise hooks are observed on the real runtime, with no broker.
 */
import { InMemoryStateStore, type ActorRuntimeDeps, type AgentDefinition, type OutboxEntryDoc } from '#core';
import { RuntimeMetrics, TraceScopes, type TraceStepsMode } from '#telemetry';
import { composeCommitPath } from '../commit-path.factory.js';
import { systemClock } from '../system-clock.js';
import { TracedActorRuntime } from '../telemetry/traced-actor-runtime.js';

/** The agent every rig runtime hosts. */
export const ECHO: AgentDefinition = { name: 'echo', handler: (ctx) => ({ kind: 'complete', output: ctx.eventText() }) };

/** What a rig runtime is built over; every part defaults to a fresh one. */
export interface TracedEchoRuntimeOptions {
  readonly store?: InMemoryStateStore;
  /** Receives every outbox entry published (the rig's publisher always succeeds). */
  readonly published?: OutboxEntryDoc[];
  readonly metrics?: RuntimeMetrics;
  /** The partition the span attribute names. */
  readonly partition?: number;
  /** `ActivationTelemetry.parentBased`. */
  readonly parentBased?: boolean;
  /** How state and outbox steps are recorded (`AGENTS_TRACE_STEPS`); default `events`, as in the services. */
  readonly steps?: TraceStepsMode;
}

/**
 * The runtime's ports for a rig hosting {@link ECHO}: `store`, a publisher appending to
 * `published`, no model, the system clock, fixed randomness and small bounds. What
 * {@link composeCommitPath} wraps, before any wrapping.
 */
export function echoRuntimePorts(store: InMemoryStateStore, published: OutboxEntryDoc[]): ActorRuntimeDeps {
  return {
    store,
    publisher: { publish: (entries) => (published.push(...entries), Promise.resolve()) },
    agents: new Map([[ECHO.name, ECHO]]),
    provider: { name: 'none', complete: () => Promise.reject(new Error('no model')) },
    addressing: { output: () => 'agents.output.echo.k', error: (agent, reason) => `agents.errors.${agent}.${reason}`, intent: (a, t) => `agents.intents.${a}.${t}`, approvalRequest: () => 'agents.approval-requests.echo.k', inboxStream: 'AGENTS_INBOX' },
    timers: systemClock,
    monotonicMs: () => systemClock.monotonicMs(),
    random: () => 0.5,
    activationTimeoutMs: 5_000,
    maxDocumentBytes: 1_000_000,
    cacheCapacity: 10,
    backoff: { baseMs: 1, maxMs: 2 },
  };
}

/** A traced runtime (tracing on) hosting {@link ECHO}. */
export function tracedEchoRuntime(options: TracedEchoRuntimeOptions = {}): TracedActorRuntime {
  const metrics = options.metrics ?? new RuntimeMetrics({ defaultMetrics: false });
  const scopes = new TraceScopes();
  return new TracedActorRuntime(
    composeCommitPath(echoRuntimePorts(options.store ?? new InMemoryStateStore(), options.published ?? []), { failpoints: [], metrics, prefix: 'agents', scopes, tracing: true, steps: options.steps ?? 'events' }),
    { metrics, prefix: 'agents', partitionOf: () => options.partition ?? 0, tracing: true, scopes, ...(options.parentBased !== undefined ? { parentBased: options.parentBased } : {}) },
  );
}
