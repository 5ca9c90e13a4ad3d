/**
 * The provider's delay between attempts: exponential backoff with full jitter
 * (`uniform(0, min(base·2^(n-1), max))`), floored by the server's `Retry-After`. Pure: the
 * random source is an argument, so a test fixes it and asserts exact delays. (The actor
 * runtime's `backoffDelay` in `#core` uses equal jitter; model calls follow the beam-agents
 * `RetryPolicy`, which is full jitter.)
 */
import type { BackoffPolicy } from '#core';

/**
 * The delay, in milliseconds, to wait after failed attempt `failedAttempt` (1-based) before the
 * next one, with `policy.baseMs` the ceiling before the second attempt and `policy.maxMs` the cap
 * of any jittered delay (a `Retry-After` floor may exceed it): `random() · min(baseMs · 2^(failedAttempt-1), maxMs)`, then raised to
 * `retryAfterMs` when the server asked for at least that long. Always a finite integer ≥ 0.
 *
 * @param random - A source of uniform values in `[0, 1)`, e.g. `Math.random`.
 */
export function fullJitterBackoffMs(
  failedAttempt: number,
  policy: BackoffPolicy,
  random: () => number,
  retryAfterMs?: number,
): number {
  const ceiling = Math.min(policy.baseMs * 2 ** Math.max(0, failedAttempt - 1), policy.maxMs);
  const jittered = Math.floor(clampUnit(random()) * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

function clampUnit(value: number): number {
  if (!Number.isFinite(value) || value < 0) return 0;
  return Math.min(value, 1);
}
