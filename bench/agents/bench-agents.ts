/**
 * Names shared by the benchmark's agents (loaded by the activator) and the load generator and
 * baseline (which address the same agent names), kept apart from the agent modules so importing
 * them has no side effects.
 */

/** The no-op agent: outputs the event verbatim. */
export const NOOP_AGENT = 'bench-noop';

/** The model agent: one FakeLlm call, then outputs the event verbatim. */
export const MODEL_AGENT = 'bench-model';

/** The round-trip agent: stages one intent for {@link NOOP_TOOL} and suspends; on the result, outputs the event verbatim. */
export const TOOL_AGENT = 'bench-tool';

/** The effector's no-op tool the round-trip agent calls (it returns `{}` at once). */
export const NOOP_TOOL = 'bench-noop-tool';

/** Environment variable carrying the simulated model latency in ms (activator and baseline worker). */
export const MODEL_LATENCY_ENV = 'BENCH_MODEL_LATENCY_MS';
