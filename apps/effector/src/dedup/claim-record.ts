/**
 * The value the dedup store keeps per intent id: a small versioned JSON document. Pure (no NATS,
 * no clock): encoding is deterministic (fixed key order), so equal records are equal bytes, and
 * the stored result bytes round-trip exactly (base64), which is what makes a republished result
 * byte-identical to the first publication.
 */
import { ClaimRecordUnreadable } from './dedup-errors.js';

/** The record layout this binary writes; a record with another version is unreadable (held, never executed). */
export const CLAIM_RECORD_VERSION = 1;

/** The states of a record (a closed vocabulary). */
export const ClaimState = {
  /** An execution owns the intent until `leaseUntilMs`; afterwards anyone may take it over. */
  Claimed: 'claimed',
  /** The terminal result is recorded; redeliveries republish it until `retainUntilMs`. */
  Done: 'done',
} as const;
export type ClaimState = (typeof ClaimState)[keyof typeof ClaimState];

/** A decoded record. */
export type ClaimRecord =
  | { readonly state: typeof ClaimState.Claimed; readonly token: string; readonly leaseUntilMs: number }
  | { readonly state: typeof ClaimState.Done; readonly token: string; readonly retainUntilMs: number; readonly result: Uint8Array };

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Deterministic bytes of a record. */
export function encodeClaimRecord(record: ClaimRecord): Uint8Array {
  const json =
    record.state === ClaimState.Claimed
      ? { version: CLAIM_RECORD_VERSION, state: record.state, token: record.token, leaseUntilMs: record.leaseUntilMs }
      : {
          version: CLAIM_RECORD_VERSION,
          state: record.state,
          token: record.token,
          retainUntilMs: record.retainUntilMs,
          result: Buffer.from(record.result.buffer, record.result.byteOffset, record.result.byteLength).toString('base64'),
        };
  return utf8.encode(JSON.stringify(json));
}

/**
 * Decodes a record. Throws {@link ClaimRecordUnreadable} for anything this binary did not write
 * (the caller holds the intent rather than guess).
 */
export function decodeClaimRecord(intentId: string, bytes: Uint8Array): ClaimRecord {
  let value: unknown;
  try {
    value = JSON.parse(fromUtf8.decode(bytes));
  } catch (error) {
    throw new ClaimRecordUnreadable(intentId, `dedup record of ${intentId} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const fail = (problem: string): never => {
    throw new ClaimRecordUnreadable(intentId, `dedup record of ${intentId} is unreadable: ${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not an object');
  const record = value as Record<string, unknown>;
  if (record.version !== CLAIM_RECORD_VERSION) return fail(`version ${String(record.version)}, this binary reads ${CLAIM_RECORD_VERSION}`);
  const token = record.token;
  if (typeof token !== 'string' || token.length === 0) return fail('no token');
  switch (record.state) {
    case ClaimState.Claimed: {
      const leaseUntilMs = record.leaseUntilMs;
      if (!Number.isSafeInteger(leaseUntilMs)) return fail('no lease');
      return { state: ClaimState.Claimed, token, leaseUntilMs: leaseUntilMs as number };
    }
    case ClaimState.Done: {
      const retainUntilMs = record.retainUntilMs;
      if (!Number.isSafeInteger(retainUntilMs)) return fail('no retention');
      if (typeof record.result !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(record.result)) return fail('no result');
      return { state: ClaimState.Done, token, retainUntilMs: retainUntilMs as number, result: new Uint8Array(Buffer.from(record.result, 'base64')) };
    }
    default:
      return fail(`unknown state ${JSON.stringify(record.state)}`);
  }
}
