/**
 * Backoff bounds of the effector's waits (beam-agents' defaults). Pure constants: the delays
 * themselves come from core's `backoffDelay` with jitter, so many replicas waiting on one outage
 * spread out. None of these retries re-executes a tool except `toolRetry`, which applies only to
 * a tool's own `RetryableError`.
 */
import type { BackoffPolicy } from '#core';

/** The backoff bound of each kind of wait. */
export const EffectorBackoff = {
  /** Polling a claim held elsewhere under a live lease (in flight): 250 ms doubling to 5 s. */
  inFlight: { baseMs: 250, maxMs: 5_000 },
  /** Dedup-store outages and lost races, retried in place: 100 ms doubling to 5 s. */
  store: { baseMs: 100, maxMs: 5_000 },
  /** Result and error-record publishes: 100 ms doubling (5 attempts). */
  publish: { baseMs: 100, maxMs: 1_600 },
  /** A tool's `RetryableError`, up to its `retries`: 200 ms doubling to 5 s (a retry-after floors it). */
  toolRetry: { baseMs: 200, maxMs: 5_000 },
  /** Pulling intents after the consumer failed: 250 ms doubling to 10 s. */
  pull: { baseMs: 250, maxMs: 10_000 },
} as const satisfies Record<string, BackoffPolicy>;

/** Publish attempts before a result publish is given up (the intent is then redelivered and republished). */
export const PUBLISH_MAX_ATTEMPTS = 5;

/** Extra attempts of a tool that throws `RetryableError`, when the tool does not say. */
export const DEFAULT_TOOL_RETRIES = 2;
