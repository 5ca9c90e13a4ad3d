/**
 * The environment contract between the benchmark and a baseline process (kept apart from the
 * entry point, which runs on import).
 */
import { MODEL_LATENCY_ENV } from '../agents/bench-agents.js';

/** The environment variables a baseline process reads. */
export const BaselineEnv = {
  natsUrl: 'NATS_URL',
  partitions: 'BENCH_BASELINE_PARTITIONS',
  maxAckPending: 'BENCH_BASELINE_MAX_ACK_PENDING',
  modelLatencyMs: MODEL_LATENCY_ENV,
  /** `1`: connect with the client's `noAsyncTraces` option. */
  noAsyncTraces: 'BENCH_BASELINE_NO_ASYNC_TRACES',
} as const;

/** The baseline roles, one process each (the effector only for the round-trip phases). */
export type BaselineRole = 'forwarder' | 'worker' | 'effector';
