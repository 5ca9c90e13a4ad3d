import { describe, expect, it } from 'vitest';
import { ActivationTimeout } from './activation-timeout.js';
import { AttemptAbort } from './attempt-abort.js';

describe('AttemptAbort', () => {
  it('is not abandoned until aborted, and its signal is live', () => {
    const abort = new AttemptAbort();
    expect(abort.abandoned).toBe(false);
    expect(abort.signal.aborted).toBe(false);
  });

  it('aborts a signal read before the abort with the reason', () => {
    const abort = new AttemptAbort();
    const signal = abort.signal;
    const reason = new ActivationTimeout(10);
    abort.abort(reason);
    expect(abort.abandoned).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('gives a signal first read after the abort already aborted, with the reason', () => {
    const abort = new AttemptAbort();
    const reason = new ActivationTimeout(10);
    abort.abort(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
  });

  it('keeps the first reason when aborted twice', () => {
    const abort = new AttemptAbort();
    const first = new ActivationTimeout(10);
    abort.abort(first);
    abort.abort(new ActivationTimeout(20));
    expect(abort.signal.reason).toBe(first);
  });

  it('tells each listener the reason once, and a listener added after the abort at once', () => {
    const abort = new AttemptAbort();
    const heard: string[] = [];
    abort.onAbort((reason) => heard.push(`first ${reason.message}`));
    abort.onAbort((reason) => heard.push(`second ${reason.message}`));
    const reason = new ActivationTimeout(10);
    abort.abort(reason);
    abort.abort(new ActivationTimeout(20));
    abort.onAbort((late) => heard.push(`late ${late.message}`));
    expect(heard).toEqual([`first ${reason.message}`, `second ${reason.message}`, `late ${reason.message}`]);
    expect(abort.reason).toBe(reason);
  });

  it('forgets a removed listener', () => {
    const abort = new AttemptAbort();
    const heard: Error[] = [];
    const remove = abort.onAbort((reason) => heard.push(reason));
    remove();
    abort.abort(new ActivationTimeout(10));
    expect(heard).toEqual([]);
  });

  it('has no reason while the attempt runs', () => {
    expect(new AttemptAbort().reason).toBeUndefined();
  });
});
