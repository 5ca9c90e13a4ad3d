// Layer 1: the dedup record is the effector's only durable memory of an intent; its bytes must be
// deterministic, round-trip the stored result exactly, and refuse anything this binary did not write.
import { describe, expect, it } from 'vitest';
import { decideCompletion, mayRelease, readForClaim } from './claim-decision.js';
import { ClaimState, decodeClaimRecord, encodeClaimRecord, type ClaimRecord } from './claim-record.js';
import { ClaimRecordUnreadable } from './dedup-errors.js';

const utf8 = new TextEncoder();
const claimed: ClaimRecord = { state: ClaimState.Claimed, token: 't1', leaseUntilMs: 1_000 };
const done: ClaimRecord = { state: ClaimState.Done, token: 't1', retainUntilMs: 5_000, result: Uint8Array.from([0, 1, 2, 250, 255]) };

describe('claim record codec', () => {
  it('encodes deterministically as versioned JSON', () => {
    expect(new TextDecoder().decode(encodeClaimRecord(claimed))).toBe('{"version":1,"state":"claimed","token":"t1","leaseUntilMs":1000}');
    expect(encodeClaimRecord(done)).toEqual(encodeClaimRecord({ ...done }));
  });

  it('round-trips both states, the result bytes exactly', () => {
    expect(decodeClaimRecord('i', encodeClaimRecord(claimed))).toEqual(claimed);
    const back = decodeClaimRecord('i', encodeClaimRecord(done));
    expect(back).toEqual(done);
    expect(back.state === ClaimState.Done && Buffer.from(back.result).equals(Buffer.from(done.result))).toBe(true);
  });

  it.each([
    ['not JSON', utf8.encode('C:token')],
    ['another version', utf8.encode('{"version":2,"state":"claimed","token":"t","leaseUntilMs":1}')],
    ['an unknown state', utf8.encode('{"version":1,"state":"pending","token":"t"}')],
    ['no token', utf8.encode('{"version":1,"state":"claimed","leaseUntilMs":1}')],
    ['a done record without result', utf8.encode('{"version":1,"state":"done","token":"t","retainUntilMs":1}')],
    ['invalid UTF-8', Uint8Array.from([0xff, 0xfe])],
  ])('refuses %s as ClaimRecordUnreadable (the intent is held, never executed)', (_what, bytes) => {
    expect(() => decodeClaimRecord('intent-1', bytes)).toThrow(ClaimRecordUnreadable);
  });
});

describe('claim decisions', () => {
  it('reads a live foreign lease as in flight and an ended one — exactly at its end included — as reclaimable', () => {
    expect(readForClaim(claimed, 't2', 999)).toEqual({ kind: 'in_flight', leaseUntilMs: 1_000 });
    expect(readForClaim(claimed, 't2', 1_000)).toEqual({ kind: 'reclaimable' });
  });

  it("recognises the caller's own claim (a retried claim whose first write landed)", () => {
    expect(readForClaim(claimed, 't1', 50_000)).toEqual({ kind: 'mine', leaseUntilMs: 1_000 });
  });

  it('reads a retained done record as done and an expired one as never seen', () => {
    expect(readForClaim(done, 't2', 4_999)).toEqual({ kind: 'done', result: done.state === ClaimState.Done ? done.result : undefined });
    expect(readForClaim(done, 't2', 5_000)).toEqual({ kind: 'reclaimable' });
  });

  it('lets only the owner complete, and a repeated completion succeed only with the same bytes', () => {
    expect(decideCompletion(claimed, 't1', utf8.encode('r'))).toBe('write');
    expect(decideCompletion(claimed, 't2', utf8.encode('r'))).toBe('lost');
    expect(decideCompletion(undefined, 't1', utf8.encode('r'))).toBe('lost');
    expect(decideCompletion(done, 't1', Uint8Array.from([0, 1, 2, 250, 255]))).toBe('already_done');
    expect(decideCompletion(done, 't1', Uint8Array.from([0, 1, 2]))).toBe('lost');
    expect(decideCompletion(done, 't2', Uint8Array.from([0, 1, 2, 250, 255]))).toBe('lost');
  });

  it('lets only the owner release, and only while claimed', () => {
    expect(mayRelease(claimed, 't1')).toBe(true);
    expect(mayRelease(claimed, 't2')).toBe(false);
    expect(mayRelease(done, 't1')).toBe(false);
    expect(mayRelease(undefined, 't1')).toBe(false);
  });
});
