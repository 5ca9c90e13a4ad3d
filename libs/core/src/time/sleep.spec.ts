// sleep is how every retry loop in the core waits; on manual timers its abort behaviour is checkable without waiting real time.
import { describe, expect, it } from 'vitest';
import { flushMicrotasks, ManualTimers } from '../testing/manual-timers.js';
import { sleep } from './sleep.js';

describe('sleep', () => {
  it('resolves once the injected timers reach the delay, not before', async () => {
    const timers = new ManualTimers();
    let done = false;
    void sleep(timers, 1_000).then(() => (done = true));
    await timers.advanceBy(999);
    expect(done).toBe(false);
    await timers.advanceBy(1);
    expect(done).toBe(true);
  });

  it('resolves early on abort, cancelling its timer', async () => {
    const timers = new ManualTimers();
    const controller = new AbortController();
    let done = false;
    void sleep(timers, 60_000, controller.signal).then(() => (done = true));
    expect(timers.pending).toBe(1);
    controller.abort(new Error('partition lost'));
    await flushMicrotasks();
    expect(done).toBe(true);
    expect(timers.pending).toBe(0);
  });

  it('resolves at once without scheduling anything when the signal is already aborted', async () => {
    const timers = new ManualTimers();
    const controller = new AbortController();
    controller.abort();
    await expect(sleep(timers, 60_000, controller.signal)).resolves.toBeUndefined();
    expect(timers.requestedDelays).toEqual([]);
  });

  it('never rejects, whatever the abort reason', async () => {
    const timers = new ManualTimers();
    const controller = new AbortController();
    const slept = sleep(timers, 10, controller.signal);
    controller.abort(new TypeError('reason'));
    await expect(slept).resolves.toBeUndefined();
  });
});
