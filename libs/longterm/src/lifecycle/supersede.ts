/**
 * Supersede and restore (seed 004): retire a record by pointing it at its replacement instead of
 * deleting it, and undo that. Both produce the record to upsert; neither does I/O. The write goes
 * through the seq guard like any other, so it carries a seq at least one above the record's: a
 * delayed duplicate of the original flush (same seq, no pointer) is then refused instead of
 * silently reviving a retired record. Pure.
 */
import type { LongTermRecord } from '#core';
import { LongTermArgumentError } from '../errors.js';
import { assertKey } from '../long-term-validation.js';

/** Options of {@link supersede} and {@link restore}. */
export interface LifecycleWriteOptions {
  /**
   * The seq of the write: the reconciling activation's own seq. Defaults to `record.seq + 1`.
   * MUST be >= `record.seq`, or the guard would refuse the write.
   */
  readonly seq?: number;
}

/**
 * The upsert that retires `old` in favour of `newKey`: same key, value, type, expiry and
 * confidence, with `supersededBy = newKey` and `supersededAtMs = atMs`. Retrieval stops returning
 * it (unless asked to include superseded records); `history` still shows it. Re-pointing an
 * already superseded record is allowed and overwrites its pointer.
 *
 * @throws {LongTermArgumentError} for an invalid `newKey`, `newKey === old.key`, or a seq below `old.seq`.
 * @example
 * ```ts
 * await store.upsert([supersede(oldFact, 'fact/light-runtime-v2', event.timeMs, { seq: ctx.seq })]);
 * ```
 */
export function supersede(old: LongTermRecord, newKey: string, atMs: number, options: LifecycleWriteOptions = {}): LongTermRecord {
  assertKey(newKey, 'newKey');
  if (newKey === old.key) throw new LongTermArgumentError(`record ${JSON.stringify(old.key)} cannot supersede itself`);
  if (!Number.isSafeInteger(atMs) || atMs <= 0) throw new LongTermArgumentError(`supersede time must be a positive integer of epoch ms, got ${atMs}`);
  return { ...old, supersededBy: newKey, supersededAtMs: atMs, seq: writeSeq(old, options) };
}

/**
 * The upsert that reverses a supersede: the record active again (`supersededBy` and
 * `supersededAtMs` cleared), everything else unchanged but the seq. A record that is not
 * superseded is returned re-stamped the same way (restoring twice is harmless).
 *
 * @throws {LongTermArgumentError} for a seq below `record.seq`.
 */
export function restore(record: LongTermRecord, options: LifecycleWriteOptions = {}): LongTermRecord {
  return { ...record, supersededBy: '', supersededAtMs: 0, seq: writeSeq(record, options) };
}

function writeSeq(record: LongTermRecord, options: LifecycleWriteOptions): number {
  const seq = options.seq ?? record.seq + 1;
  if (!Number.isSafeInteger(seq) || seq < record.seq) {
    throw new LongTermArgumentError(`a lifecycle write needs a seq >= the record's (${record.seq}), got ${seq}`);
  }
  return seq;
}
