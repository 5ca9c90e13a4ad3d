/**
 * How the activator records the steps of a sampled activation — its KV read (`state.load`), its
 * compare-and-set write (`state.commit`) and its outbox publish (`outbox.publish`):
 * - `events` (the default): as span events of the `activate` span, each stamped with the step's
 *   start and carrying its duration (`agents.duration_ms`) and attributes. What a step took and
 *   what it wrote stays in the trace; no span is built, queued and exported for it.
 * - `spans`: as child spans of the `activate` span (a waterfall per step); in ad-hoc runs at a
 *   10 % ratio that about doubled what tracing cost the activator (decision 0087).
 *
 * Model calls (`chat <model>`) and long-term flushes (`longterm.flush`) are child spans in both
 * modes: other services' spans hang under them, and a model call's tokens are what a trace is
 * read for. The mode changes only what a sampled activation exports; nothing is written to the
 * broker differently, so a redelivery, a replay or a crash behaves the same under either.
 */
export type TraceStepsMode = 'events' | 'spans';

/** Thrown at start-up for an unknown `AGENTS_TRACE_STEPS` value: the service refuses to start rather than trace differently than asked. */
export class TraceStepsModeError extends Error {
  override readonly name = 'TraceStepsModeError';
}

/** Reads `AGENTS_TRACE_STEPS` (`events` | `spans`, default `events`). Pure: read once by `startTracing`. */
export function traceStepsFromEnv(env: Readonly<Record<string, string | undefined>>): TraceStepsMode {
  const raw = (env.AGENTS_TRACE_STEPS ?? '').trim().toLowerCase() || 'events';
  if (raw !== 'events' && raw !== 'spans') throw new TraceStepsModeError(`AGENTS_TRACE_STEPS must be 'events' or 'spans', got '${raw}'`);
  return raw;
}
