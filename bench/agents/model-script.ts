/**
 * FakeLlm rules for the benchmark (`AGENTS_MODEL_SCRIPT`): every request is answered with a short
 * chat completion after `BENCH_MODEL_LATENCY_MS` (the activator's environment; default 50 ms).
 * Latency is a timer, so it costs the activator no CPU, like a real provider round trip.
 */
import { matchAny, respondWithChat, type FakeLlmRule } from '#providers';
import { MODEL_LATENCY_ENV } from './bench-agents.js';

const latencyMs = Number(process.env[MODEL_LATENCY_ENV] ?? '50');
if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error(`${MODEL_LATENCY_ENV} must be a non-negative number, got '${process.env[MODEL_LATENCY_ENV]}'`);

/** The FakeLlm script: one rule answering everything. */
export const rules: readonly FakeLlmRule[] = [[matchAny(), respondWithChat('ok', { latencyMs })]];
