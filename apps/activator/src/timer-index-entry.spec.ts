// A timer index entry is what a new partition owner rebuilds its schedule from, so its stored form is pinned and its decoder must fail soft (undefined) on anything it cannot read; pure, so checked here without a KV bucket.
import { TimerKind, type TimerDoc } from '#core';
import { describe, expect, it } from 'vitest';
import { decodeTimerIndexEntry, encodeTimerIndexEntry, type TimerIndexEntry } from './timer-index-entry.js';

const STATE_KEY = 'triage.order=2D42';
const timers: TimerDoc[] = [
  { timerId: 'deadline-0-1', kind: TimerKind.Deadline, dueAtMs: 1_700_000_005_000 },
  { timerId: 'idle', kind: TimerKind.IdleTtl, dueAtMs: 1_700_003_600_000 },
];
const entry: TimerIndexEntry = { owner: { stateKey: STATE_KEY, agent: 'triage', entityKey: Uint8Array.from([0x00, 0xff, 0x6b, 0x80]) }, timers };
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('timer index entries', () => {
  it('round-trips the owner (binary key included) and every timer, taking the state key from the index key', () => {
    const decoded = decodeTimerIndexEntry(STATE_KEY, encodeTimerIndexEntry(entry));
    expect(decoded?.owner.stateKey).toBe(STATE_KEY);
    expect(decoded?.owner.agent).toBe('triage');
    expect(Buffer.from(decoded?.owner.entityKey ?? []).toString('hex')).toBe('00ff6b80');
    expect(decoded?.owner.entityKey).toBeInstanceOf(Uint8Array);
    expect(decoded?.timers).toEqual(timers);
  });

  it('stores versioned JSON with the key in base64', () => {
    expect(new TextDecoder().decode(encodeTimerIndexEntry(entry))).toBe(
      '{"v":1,"agent":"triage","key":"AP9rgA==","timers":[{"id":"deadline-0-1","kind":1,"dueAtMs":1700000005000},{"id":"idle","kind":2,"dueAtMs":1700003600000}]}',
    );
  });

  it('round-trips an entry with no timers', () => {
    expect(decodeTimerIndexEntry(STATE_KEY, encodeTimerIndexEntry({ ...entry, timers: [] }))?.timers).toEqual([]);
  });

  it.each([
    ['bytes that are not JSON', new Uint8Array([0xff, 0x00, 0x7b])],
    ['JSON null', utf8('null')],
    ['another version', utf8('{"v":2,"agent":"triage","key":"AP9rgA==","timers":[]}')],
    ['no version', utf8('{"agent":"triage","key":"AP9rgA==","timers":[]}')],
    ['no timers', utf8('{"v":1,"agent":"triage","key":"AP9rgA=="}')],
    ['a key that is not a string', utf8('{"v":1,"agent":"triage","key":7,"timers":[]}')],
  ])('reads %s as undefined instead of throwing', (_case, bytes) => {
    expect(decodeTimerIndexEntry(STATE_KEY, bytes)).toBeUndefined();
  });
});
