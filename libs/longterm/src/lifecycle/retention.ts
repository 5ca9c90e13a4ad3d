/**
 * Retention per memory type (seed 004): the raw material expires, the derivations persist. A
 * record's expiry is resolved when it is written and stored in it (`expiresAtMs`), so it is part
 * of the deterministic record bytes: a replayed activation resolves the identical expiry from
 * the same event time and configuration. Pure.
 */
import { DEFAULT_RETENTION_MS, MEMORY_TYPE_PATTERN } from '#core';
import { LongTermArgumentError } from '../errors.js';

/** Operator overrides of retention per type, in ms (0 = indefinite); types not named keep their default. */
export type RetentionOverrides = Readonly<Record<string, number>>;

/**
 * The retention of `type` in ms (0 = indefinite). Precedence: the per-write override, then the
 * operator's override for the type, then `DEFAULT_RETENTION_MS`, then indefinite (an
 * operator-defined type with no configured retention is kept).
 *
 * @throws {LongTermArgumentError} for a type outside `MEMORY_TYPE_PATTERN` or a retention that is
 * not a non-negative integer.
 * @example
 * ```ts
 * resolveRetentionMs('turn');                                 // 2_592_000_000 (30 days)
 * resolveRetentionMs('turn', { turn: 7 * 86_400_000 });       // 604_800_000
 * resolveRetentionMs('fact', {}, 3_600_000);                  // 3_600_000 (this write only)
 * ```
 */
export function resolveRetentionMs(type: string, overrides: RetentionOverrides = {}, perWriteMs?: number): number {
  if (!MEMORY_TYPE_PATTERN.test(type)) throw new LongTermArgumentError(`memory type must match ${MEMORY_TYPE_PATTERN}, got ${JSON.stringify(type)}`);
  const chosen = perWriteMs ?? (Object.hasOwn(overrides, type) ? overrides[type] : undefined) ?? (Object.hasOwn(DEFAULT_RETENTION_MS, type) ? DEFAULT_RETENTION_MS[type] : undefined) ?? 0;
  if (!Number.isSafeInteger(chosen) || chosen < 0) throw new LongTermArgumentError(`retention of ${type} must be a non-negative integer of ms, got ${chosen}`);
  return chosen;
}

/**
 * The absolute expiry of a record of `type` written at `writtenAtMs` (the activation's event
 * time, never a wall clock): `writtenAtMs + retention`, or 0 (never) for indefinite retention.
 */
export function expiresAtFor(type: string, writtenAtMs: number, overrides: RetentionOverrides = {}, perWriteMs?: number): number {
  if (!Number.isSafeInteger(writtenAtMs) || writtenAtMs < 0) throw new LongTermArgumentError(`write time must be a non-negative integer of epoch ms, got ${writtenAtMs}`);
  const retentionMs = resolveRetentionMs(type, overrides, perWriteMs);
  return retentionMs === 0 ? 0 : writtenAtMs + retentionMs;
}

/**
 * Validates operator overrides (config load): every type matches `MEMORY_TYPE_PATTERN` and every
 * retention is a non-negative integer. Returns them unchanged.
 *
 * @throws {LongTermArgumentError} naming the first offending entry.
 */
export function validateRetentionOverrides(overrides: RetentionOverrides): RetentionOverrides {
  for (const [type, ms] of Object.entries(overrides)) resolveRetentionMs(type, overrides, ms);
  return overrides;
}
