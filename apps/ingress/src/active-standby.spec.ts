// Active/standby is a protocol over one KV key and a monotonic clock; an in-memory bucket and a manual clock drive every takeover, lapse and drain without a broker or real time.
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { ActiveStandby, type StandDownReason } from './active-standby.js';
import { ManualTimers } from '#core';

const TTL = 3_000;
const KEY = 'ingress';

/** A lease bucket: create-if-absent, revision-checked update and delete, and expiry on demand. */
class FakeLeaseBucket {
  private seq = 0;
  private readonly entries = new Map<string, { revision: number; value: Uint8Array }>();
  updates = 0;
  failUpdates = false;
  hangUpdates = false;

  async create(key: string, value: Uint8Array): Promise<number> {
    if (this.entries.has(key)) throw new JetStreamApiError({ code: 400, err_code: JetStreamApiCodes.StreamWrongLastSequence, description: 'wrong last sequence' });
    this.seq += 1;
    this.entries.set(key, { revision: this.seq, value });
    return this.seq;
  }

  update(key: string, value: Uint8Array, revision: number): Promise<number> {
    this.updates += 1;
    if (this.hangUpdates) return new Promise(() => undefined);
    const entry = this.entries.get(key);
    if (this.failUpdates || entry === undefined || entry.revision !== revision) return Promise.reject(new Error('wrong last sequence'));
    this.seq += 1;
    this.entries.set(key, { revision: this.seq, value });
    return Promise.resolve(this.seq);
  }

  async delete(key: string, options?: { previousSeq?: number }): Promise<void> {
    const entry = this.entries.get(key);
    if (entry === undefined || (options?.previousSeq !== undefined && entry.revision !== options.previousSeq)) throw new Error('wrong last sequence');
    this.entries.delete(key);
  }

  async get(key: string): Promise<{ length: number; string(): string } | null> {
    const entry = this.entries.get(key);
    return entry === undefined ? null : { length: entry.value.length, string: () => new TextDecoder().decode(entry.value) };
  }

  /** The bucket's max_age passed without a renewal. */
  expire(key: string): void {
    this.entries.delete(key);
  }

  holder(key: string): string | undefined {
    const entry = this.entries.get(key);
    return entry === undefined ? undefined : new TextDecoder().decode(entry.value);
  }

  get kv(): KV {
    return this as unknown as KV;
  }
}

interface Replica {
  readonly lease: ActiveStandby;
  readonly events: string[];
}

function replica(name: string, bucket: FakeLeaseBucket, clock: ManualTimers, hooks: { activate?: () => Promise<void>; deactivate?: (reason: StandDownReason) => Promise<void> } = {}): Replica {
  const events: string[] = [];
  const lease = new ActiveStandby({
    leases: bucket.kv,
    key: KEY,
    holder: name,
    ttlMs: TTL,
    clock,
    hooks: {
      activate: async (epoch) => {
        events.push(`active:${epoch}`);
        await hooks.activate?.();
      },
      deactivate: async (reason) => {
        events.push(`stop:${reason}`);
        await hooks.deactivate?.(reason);
      },
      standingBy: (holder) => events.push(`standby:${holder ?? '?'}`),
    },
  });
  return { lease, events };
}

describe('ActiveStandby', () => {
  it('activates the first replica under the lease revision and keeps the second standing by', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock);
    const b = replica('b', bucket, clock);
    await a.lease.start();
    await b.lease.start();
    await clock.advanceBy(TTL * 3);
    expect(a.events).toEqual(['active:1']);
    expect(b.events).toEqual(['standby:a']);
    expect(a.lease.epoch).toBe(1);
    expect(b.lease.epoch).toBeUndefined();
  });

  it('renews at the first tick a third of the TTL after the last renewal, and stays active', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock);
    await a.lease.start();
    await clock.advanceBy(TTL * 3);
    // Ticks every 300 ms: a renewal at 1,200 ms, 2,400 ms, …, well inside the 2,400 ms validity.
    expect(bucket.updates).toBe(7);
    expect(a.lease.valid).toBe(true);
    expect(a.events).toEqual(['active:1']);
  });

  it('stops at once when a renewal fails, and a standby takes over under a higher epoch at its next tick', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock);
    const b = replica('b', bucket, clock);
    await a.lease.start();
    await b.lease.start();
    bucket.failUpdates = true;
    await clock.advanceBy(TTL / 3 + TTL / 10);
    expect(a.events).toEqual(['active:1', 'stop:lost']);
    expect(a.lease.valid).toBe(false);
    bucket.failUpdates = false;
    await clock.advanceBy(TTL / 10);
    const taken = [...a.events, ...b.events].filter((e) => e.startsWith('active:') && e !== 'active:1');
    expect(taken).toHaveLength(1);
    expect(Number(taken[0]?.slice('active:'.length))).toBeGreaterThan(1);
  });

  it('stops when its local validity lapses even though the renewal never answers', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock);
    await a.lease.start();
    bucket.hangUpdates = true;
    // Valid until TTL minus the safety margin (a fifth) after the last renewal was sent.
    await clock.advanceBy(TTL - TTL / 5 - 1);
    expect(a.events).toEqual(['active:1']);
    await clock.advanceBy(1);
    expect(a.events).toEqual(['active:1', 'stop:lost']);
  });

  it('lets a standby take over within one TTL and one tick of the holder crashing', async () => {
    const bucket = new FakeLeaseBucket();
    const crashedClock = new ManualTimers();
    const clock = new ManualTimers();
    const a = replica('a', bucket, crashedClock);
    const b = replica('b', bucket, clock);
    await a.lease.start();
    await b.lease.start();
    // `a` never ticks again (SIGKILL); the bucket drops its key at max_age.
    await clock.advanceBy(TTL - 1);
    expect(b.events).toEqual(['standby:a']);
    bucket.expire(KEY);
    await clock.advanceBy(TTL / 10);
    expect(b.events).toEqual(['standby:a', 'active:2']);
    expect(bucket.holder(KEY)).toBe('b');
  });

  it('drains on stop while still renewing, then releases so a standby takes over at once', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    let finishDrain: () => void = () => undefined;
    const drained = new Promise<void>((resolve) => (finishDrain = resolve));
    const a = replica('a', bucket, clock, { deactivate: (reason) => (reason === 'shutdown' ? drained : Promise.resolve()) });
    const b = replica('b', bucket, clock);
    await a.lease.start();
    await b.lease.start();
    const stopped = a.lease.stop();
    const before = bucket.updates;
    await clock.advanceBy(TTL * 2);
    expect(bucket.updates).toBeGreaterThan(before);
    expect(a.events).toEqual(['active:1', 'stop:shutdown']);
    expect(b.events).toEqual(['standby:a']);
    finishDrain();
    await stopped;
    expect(bucket.holder(KEY)).toBeUndefined();
    await clock.advanceBy(TTL / 10);
    expect(b.events).toHaveLength(2);
    expect(b.lease.epoch).toBeGreaterThan(1);
    await clock.advanceBy(TTL);
    expect(a.events).toEqual(['active:1', 'stop:shutdown']);
  });

  it('escalates a drain to an immediate stop when the lease is lost during it', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock, { deactivate: (reason) => (reason === 'shutdown' ? new Promise(() => undefined) : Promise.resolve()) });
    await a.lease.start();
    void a.lease.stop();
    bucket.failUpdates = true;
    await clock.advanceBy(TTL / 3 + TTL / 10);
    expect(a.events).toEqual(['active:1', 'stop:shutdown', 'stop:lost']);
  });

  it('restarts the work under a new epoch on reset', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    const a = replica('a', bucket, clock);
    await a.lease.start();
    a.lease.reset();
    await clock.advanceBy(TTL / 10);
    expect(a.events).toEqual(['active:1', 'stop:reset', 'active:2']);
    expect(a.lease.epoch).toBe(2);
  });

  it('gives the lease back when the work cannot start, and tries again at the next tick', async () => {
    const bucket = new FakeLeaseBucket();
    const clock = new ManualTimers();
    let failures = 1;
    const a = replica('a', bucket, clock, {
      activate: async () => {
        if (failures-- > 0) throw new Error('consumer could not be created');
      },
    });
    await a.lease.start();
    expect(bucket.holder(KEY)).toBeUndefined();
    await clock.advanceBy(TTL / 10);
    expect(a.events).toEqual(['active:1', 'active:2']);
    expect(a.lease.epoch).toBe(2);
  });
});
