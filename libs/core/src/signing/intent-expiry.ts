import type { ToolIntentDoc } from '../actor/actor-document.js';

/**
 * Fail-closed layer 2 (invariant 6): an intent is expired when its expiry is missing or not
 * positive, or at or before `nowMs`. Pure; the effector asks it before touching its dedup store.
 */
export function intentExpired(intent: Pick<ToolIntentDoc, 'expiresAtMs'>, nowMs: number): boolean {
  return intent.expiresAtMs <= 0 || intent.expiresAtMs <= nowMs;
}
