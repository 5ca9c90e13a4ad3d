/**
 * The dedup-store contract (beam-agents K29) as one suite that every `DedupStore` adapter runs:
 * `KvDedupStore` against a real nats-server and `InMemoryDedupStore`, both in
 * `dedup-store.test.ts`. Time is a manual clock shared by every "replica" the backend opens, so
 * lease and retention expiry are exact and take no real time.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ClaimHandle, ClaimOutcome, DedupStore } from '../../apps/effector/src/dedup/dedup-store.js';

/** Opens stores over one shared backing (one bucket, one map), all on the suite's clock. */
export interface DedupBackend {
  open(nowMs: () => number): DedupStore;
}

const T0 = 1_700_000_000_000;
const LEASE = 10_000;
const RETAIN = 60_000;

function expectClaimed(outcome: ClaimOutcome): ClaimHandle {
  if (outcome.kind !== 'claimed') throw new Error(`expected claimed, got ${outcome.kind}`);
  return outcome.claim;
}

/** Registers the conformance suite for the backend `setup` returns (called once per test). */
export function dedupStoreConformance(name: string, setup: () => DedupBackend | Promise<DedupBackend>): void {
  async function replicas(): Promise<{ a: DedupStore; b: DedupStore; clock: { now: number } }> {
    const clock = { now: T0 };
    const backend = await setup();
    return { a: backend.open(() => clock.now), b: backend.open(() => clock.now), clock };
  }

  describe(`DedupStore conformance: ${name}`, () => {
    it('grants the first claim to its token, with the lease it asked for', async () => {
      const { a } = await replicas();
      const outcome = await a.claim(randomUUID(), { token: 'ta', leaseMs: LEASE });
      expect(outcome).toMatchObject({ kind: 'claimed', claim: { token: 'ta' }, leaseUntilMs: T0 + LEASE });
    });

    it('grants exactly one of two concurrent claims; the other reads in flight', async () => {
      const { a, b } = await replicas();
      for (let round = 0; round < 10; round += 1) {
        const id = randomUUID();
        const outcomes = await Promise.all([a.claim(id, { token: 'ta', leaseMs: LEASE }), b.claim(id, { token: 'tb', leaseMs: LEASE })]);
        expect(outcomes.map((o) => o.kind).sort()).toEqual(['claimed', 'in_flight']);
      }
    });

    it('reads a completed intent back as done with byte-identical result bytes', async () => {
      const { a, b } = await replicas();
      const id = randomUUID();
      const result = new Uint8Array(randomBytes(64 * 1024));
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(await a.complete(id, claim, result, RETAIN)).toBe(true);
      const again = await b.claim(id, { token: 'tb', leaseMs: LEASE });
      expect(again.kind).toBe('done');
      expect(again.kind === 'done' && Buffer.from(again.result).equals(Buffer.from(result))).toBe(true);
    });

    it('refuses completion by a non-owner; the claim stays in flight', async () => {
      const { a, b } = await replicas();
      const id = randomUUID();
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(await b.complete(id, { ...claim, token: 'forged' }, Uint8Array.from([1]), RETAIN)).toBe(false);
      expect(await b.claim(id, { token: 'tb', leaseMs: LEASE })).toMatchObject({ kind: 'in_flight', leaseUntilMs: T0 + LEASE });
    });

    it('refuses release by a non-owner; release by the owner frees the intent for a new token', async () => {
      const { a, b } = await replicas();
      const id = randomUUID();
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(await b.release(id, { ...claim, token: 'tb' })).toBe(false);
      expect((await b.claim(id, { token: 'tb', leaseMs: LEASE })).kind).toBe('in_flight');
      expect(await a.release(id, claim)).toBe(true);
      expect(await b.claim(id, { token: 'tb2', leaseMs: LEASE })).toMatchObject({ kind: 'claimed', claim: { token: 'tb2' } });
    });

    it('keeps an unexpired lease in flight and lets an expired one — exactly at expiry — be taken over with a new token', async () => {
      const { a, b, clock } = await replicas();
      const id = randomUUID();
      expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      clock.now = T0 + LEASE - 1;
      expect((await b.claim(id, { token: 'tb', leaseMs: LEASE })).kind).toBe('in_flight');
      clock.now = T0 + LEASE;
      expect(await b.claim(id, { token: 'tb', leaseMs: LEASE })).toMatchObject({ kind: 'claimed', claim: { token: 'tb' }, leaseUntilMs: T0 + 2 * LEASE });
    });

    it('reads an expired done record as never seen', async () => {
      const { a, b, clock } = await replicas();
      const id = randomUUID();
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(await a.complete(id, claim, Uint8Array.from([7]), RETAIN)).toBe(true);
      clock.now = T0 + RETAIN - 1;
      expect((await b.claim(id, { token: 'tb', leaseMs: LEASE })).kind).toBe('done');
      clock.now = T0 + RETAIN;
      expect(await b.claim(id, { token: 'tb', leaseMs: LEASE })).toMatchObject({ kind: 'claimed', claim: { token: 'tb' } });
    });

    it("does not let a stale owner overwrite its successor's record", async () => {
      const { a, b, clock } = await replicas();
      const id = randomUUID();
      const stale = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      clock.now = T0 + LEASE;
      const fresh = expectClaimed(await b.claim(id, { token: 'tb', leaseMs: LEASE }));
      expect(await a.complete(id, stale, Uint8Array.from([1]), RETAIN)).toBe(false);
      expect(await a.release(id, stale)).toBe(false);
      expect(await b.complete(id, fresh, Uint8Array.from([2]), RETAIN)).toBe(true);
      const read = await a.claim(id, { token: 'tc', leaseMs: LEASE });
      expect(read.kind === 'done' && [...read.result]).toEqual([2]);
    });

    it('lets the owner complete after its lease ended as long as nobody took over', async () => {
      const { a, clock } = await replicas();
      const id = randomUUID();
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      clock.now = T0 + 2 * LEASE;
      expect(await a.complete(id, claim, Uint8Array.from([3]), RETAIN)).toBe(true);
    });

    it('refuses a second completion with other bytes (the first result stays) and accepts a repeat with the same bytes', async () => {
      const { a, b } = await replicas();
      const id = randomUUID();
      const claim = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(await a.complete(id, claim, Uint8Array.from([1, 2]), RETAIN)).toBe(true);
      expect(await a.complete(id, claim, Uint8Array.from([9]), RETAIN)).toBe(false);
      expect(await a.complete(id, claim, Uint8Array.from([1, 2]), RETAIN)).toBe(true);
      expect(await a.release(id, claim)).toBe(false);
      const read = await b.claim(id, { token: 'tb', leaseMs: LEASE });
      expect(read.kind === 'done' && [...read.result]).toEqual([1, 2]);
    });

    it('recognises a retried claim with the same token as the caller own (its first write landed, its answer was lost)', async () => {
      const { a } = await replicas();
      const id = randomUUID();
      const first = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      const retried = expectClaimed(await a.claim(id, { token: 'ta', leaseMs: LEASE }));
      expect(retried.token).toBe(first.token);
      expect(await a.complete(id, retried, Uint8Array.from([5]), RETAIN)).toBe(true);
    });

    it('keeps distinct intent ids independent', async () => {
      const { a, b } = await replicas();
      const [x, y] = [randomUUID(), randomUUID()];
      const cx = expectClaimed(await a.claim(x, { token: 'ta', leaseMs: LEASE }));
      expectClaimed(await b.claim(y, { token: 'tb', leaseMs: LEASE }));
      expect(await a.complete(x, cx, Uint8Array.from([1]), RETAIN)).toBe(true);
      expect((await a.claim(y, { token: 'tc', leaseMs: LEASE })).kind).toBe('in_flight');
      expect((await b.claim(x, { token: 'td', leaseMs: LEASE })).kind).toBe('done');
    });
  });
}
