// Manual timers drive every timeout and backoff in the core specs; their ordering and settle rules are checked here so those specs can trust them.
import { describe, expect, it } from 'vitest';
import { ManualTimers } from './manual-timers.js';

describe('ManualTimers', () => {
  it('fires due callbacks in due order, ties in scheduling order, and moves the clock', async () => {
    const timers = new ManualTimers(100);
    const fired: string[] = [];
    timers.setTimeout(() => fired.push('b@20'), 20);
    timers.setTimeout(() => fired.push('a@10'), 10);
    timers.setTimeout(() => fired.push('c@20'), 20);
    timers.setTimeout(() => fired.push('d@30'), 30);
    await timers.advanceBy(20);
    expect(fired).toEqual(['a@10', 'b@20', 'c@20']);
    expect(timers.monotonicMs()).toBe(120);
    expect(timers.pending).toBe(1);
  });

  it('never fires a cancelled callback', async () => {
    const timers = new ManualTimers();
    let fired = false;
    const cancel = timers.setTimeout(() => (fired = true), 5);
    cancel();
    await timers.advanceBy(10);
    expect(fired).toBe(false);
  });

  it('settles a promise by firing the timers it waits on, and refuses a deadlock', async () => {
    const timers = new ManualTimers();
    const waited = new Promise<string>((resolve) => timers.setTimeout(() => resolve('done'), 60_000));
    await expect(timers.settle(waited)).resolves.toBe('done');
    await expect(timers.settle(new Promise<never>(() => undefined))).rejects.toThrow(/no timer is scheduled/);
  });
});
