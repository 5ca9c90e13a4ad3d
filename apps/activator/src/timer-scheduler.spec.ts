// The scheduler turns a partition's timer table into inbox messages on processing time; with a manual clock and a recording publisher every firing, re-arm, retry and stop is observable here without a broker or real time.
import { Logger } from '@nestjs/common';
import { decodeInboxEnvelope, ManualTimers, TimerKind, timerMessageId, type TimerDoc, type TimerOwner } from '#core';
import { createTopology, encodeKeyToken, keyFromText } from '#routing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimerScheduler } from './timer-scheduler.js';

const T0 = 1_700_000_000_000;
const topology = createTopology({ partitions: 16 });

interface Published {
  readonly subject: string;
  readonly msgId: string;
  readonly atMs: number;
  readonly envelope: ReturnType<typeof decodeInboxEnvelope>;
}

function ownerOf(agent: string, key: string): { owner: TimerOwner; partition: number; token: string } {
  const entityKey = keyFromText(key);
  const token = encodeKeyToken(entityKey);
  return { owner: { stateKey: `${agent}.${token}`, agent, entityKey }, partition: topology.partitionOf(token), token };
}

const deadline = (dueAtMs: number, timerId = 'deadline-0-0'): TimerDoc => ({ timerId, kind: TimerKind.Deadline, dueAtMs });

describe('TimerScheduler', () => {
  const { owner, partition, token } = ownerOf('triage', 'order-42');
  /** Another key of the same partition (only the state key differs; the lane is the same). */
  const sibling: TimerOwner = { ...owner, stateKey: `${owner.stateKey}-b` };
  let clock: ManualTimers;
  let published: Published[];
  let failures: number;
  let scheduler: TimerScheduler;
  let warn: ReturnType<typeof vi.spyOn>;

  beforeEach(() => {
    clock = new ManualTimers(T0);
    published = [];
    failures = 0;
    warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    scheduler = new TimerScheduler(partition, topology, clock, async (subject, envelope, msgId) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('no responders');
      }
      published.push({ subject, msgId, atMs: clock.nowMs(), envelope: decodeInboxEnvelope(envelope) });
    });
  });

  afterEach(() => {
    scheduler.stop();
    vi.restoreAllMocks();
  });

  it("publishes a due timer into the key's timer lane under its derived message id, with the due time as event time", async () => {
    const timer = deadline(T0 + 1_000);
    scheduler.update(owner, [timer]);
    await clock.advanceBy(999);
    expect(published).toEqual([]);
    await clock.advanceBy(1);
    expect(published).toEqual([
      {
        subject: `agents.inbox.${partition}.triage.${token}.timer`,
        msgId: timerMessageId('triage', owner.entityKey, timer.timerId, timer.dueAtMs),
        atMs: T0 + 1_000,
        envelope: { entityKey: expect.anything(), eventTimeMs: T0 + 1_000, payload: { kind: 'timer', timer: { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: T0 + 1_000 } } },
      },
    ]);
    expect(Buffer.from(published[0]?.envelope.entityKey ?? []).toString()).toBe('order-42');
  });

  it('fires a timer that is already past due at once, still stamped with its due time', async () => {
    scheduler.update(owner, [deadline(T0 - 5_000)]);
    await clock.advanceBy(0);
    expect(published.map((p) => [p.atMs, p.envelope.eventTimeMs])).toEqual([[T0, T0 - 5_000]]);
  });

  it('fires the timers of several keys in due order, each once', async () => {
    scheduler.update(owner, [deadline(T0 + 300, 'late'), deadline(T0 + 100, 'early')]);
    scheduler.update(sibling, [deadline(T0 + 200, 'middle')]);
    await clock.advanceBy(1_000);
    expect(published.map((p) => [p.atMs, p.envelope.payload.kind === 'timer' ? p.envelope.payload.timer.timerId : ''])).toEqual([
      [T0 + 100, 'early'],
      [T0 + 200, 'middle'],
      [T0 + 300, 'late'],
    ]);
  });

  it('re-arms for an earlier timer scheduled after a later one', async () => {
    scheduler.update(owner, [deadline(T0 + 10_000)]);
    scheduler.update(sibling, [deadline(T0 + 50, 'early')]);
    await clock.advanceBy(50);
    expect(published.map((p) => p.atMs)).toEqual([T0 + 50]);
  });

  it('never fires timers a later update replaced or removed', async () => {
    scheduler.update(owner, [deadline(T0 + 100)]);
    scheduler.update(owner, [deadline(T0 + 500, 'deadline-0-1')]);
    await clock.advanceBy(1_000);
    expect(published.map((p) => p.msgId)).toEqual([timerMessageId('triage', owner.entityKey, 'deadline-0-1', T0 + 500)]);

    scheduler.update(owner, [deadline(T0 + 2_000, 'deadline-0-2')]);
    scheduler.update(owner, []);
    expect(scheduler.keys).toBe(0);
    await clock.advanceBy(5_000);
    expect(published).toHaveLength(1);
  });

  it('retries a failed publish later, with the same message id and event time', async () => {
    failures = 1;
    scheduler.update(owner, [deadline(T0 + 100)]);
    await clock.advanceBy(100);
    expect(published).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    await clock.advanceBy(999);
    expect(published).toEqual([]);
    await clock.advanceBy(1);
    expect(published.map((p) => [p.atMs, p.envelope.eventTimeMs, p.msgId])).toEqual([[T0 + 1_100, T0 + 100, timerMessageId('triage', owner.entityKey, 'deadline-0-0', T0 + 100)]]);
  });

  it('drops a pending retry once the timer was replaced', async () => {
    failures = 1;
    scheduler.update(owner, [deadline(T0 + 100)]);
    await clock.advanceBy(100);
    scheduler.update(owner, []);
    await clock.advanceBy(5_000);
    expect(published).toEqual([]);
  });

  it('fires nothing after stop, cancels its armed callback, and ignores later updates', async () => {
    scheduler.update(owner, [deadline(T0 + 100)]);
    expect(clock.pending).toBe(1);
    scheduler.stop();
    expect(clock.pending).toBe(0);
    scheduler.update(owner, [deadline(T0 + 200, 'after-stop')]);
    await clock.advanceBy(1_000);
    expect(published).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it('counts the keys it schedules', () => {
    scheduler.update(owner, [deadline(T0 + 100)]);
    scheduler.update(sibling, [deadline(T0 + 100)]);
    scheduler.update(owner, [deadline(T0 + 300)]);
    expect(scheduler.keys).toBe(2);
  });
});
