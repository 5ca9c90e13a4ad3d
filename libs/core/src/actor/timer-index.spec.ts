import { describe, expect, it } from 'vitest';
import { TimerKind, type TimerDoc } from './actor-document.js';
import { indexCovers } from './timer-index.js';

const deadline = (id: string, dueAtMs: number): TimerDoc => ({ timerId: id, kind: TimerKind.Deadline, dueAtMs });
const idle = (dueAtMs: number): TimerDoc => ({ timerId: 'idle-ttl', kind: TimerKind.IdleTtl, dueAtMs });

describe('indexCovers', () => {
  it('is covered by an earlier entry of another id and kind, so a new suspension needs no index write', () => {
    expect(indexCovers([deadline('deadline-1-0', 5_000)], [deadline('deadline-2-0', 6_000), idle(9_000)], 1_000)).toBe(true);
  });

  it('is not covered when a timer is due before every indexed entry', () => {
    expect(indexCovers([deadline('deadline-1-0', 5_000)], [deadline('deadline-2-0', 4_000)], 1_000)).toBe(false);
  });

  it('does not count an entry already due: its firing may have been handled before this commit', () => {
    expect(indexCovers([deadline('deadline-1-0', 5_000)], [idle(9_000)], 5_000)).toBe(false);
    expect(indexCovers([deadline('deadline-1-0', 5_000), idle(7_000)], [idle(9_000)], 5_000)).toBe(true);
  });

  it('needs nothing for no timers and something for any timer when nothing is indexed', () => {
    expect(indexCovers([], [], 0)).toBe(true);
    expect(indexCovers([], [idle(9_000)], 0)).toBe(false);
  });
});
