/** Exponential backoff bounds. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Delay before retry `attempt` (0-based): exponential from `baseMs`, capped at `maxMs`, with
 * "equal jitter" from the injected `random` so many keys retrying against one outage spread out.
 * `floorMs` (a server's retry-after) is honoured.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number, floorMs = 0): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const jittered = exponential / 2 + (random() * exponential) / 2;
  return Math.max(floorMs, Math.round(jittered));
}
