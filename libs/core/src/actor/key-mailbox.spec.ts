// Per-key serialization (invariant 4) is a pure promise discipline; deferreds let the spec decide exactly when each task settles.
import { describe, expect, it } from 'vitest';
import { flushMicrotasks } from '../testing/manual-timers.js';
import { deferred, type Deferred } from '../testing/scripted-model-provider.js';
import { KeyMailbox } from './key-mailbox.js';

/** A task that logs its start and settles when the test says so. */
function gatedTask(log: string[], name: string): { task: () => Promise<string>; gate: Deferred<string> } {
  const gate = deferred<string>();
  return {
    gate,
    task: () => {
      log.push(`start ${name}`);
      return gate.promise.finally(() => log.push(`end ${name}`));
    },
  };
}

describe('KeyMailbox', () => {
  it('runs tasks of one key strictly one after another in enqueue order', async () => {
    const mailbox = new KeyMailbox();
    const log: string[] = [];
    const tasks = ['1', '2', '3'].map((name) => gatedTask(log, name));
    const results = tasks.map(({ task }) => mailbox.run('k', task));
    await flushMicrotasks();
    expect(log).toEqual(['start 1']);
    tasks[1]?.gate.resolve('two');
    tasks[2]?.gate.resolve('three');
    await flushMicrotasks();
    expect(log).toEqual(['start 1']);
    tasks[0]?.gate.resolve('one');
    await expect(Promise.all(results)).resolves.toEqual(['one', 'two', 'three']);
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('keeps the order when an earlier task rejects, and hands the rejection to that task only', async () => {
    const mailbox = new KeyMailbox();
    const log: string[] = [];
    const first = gatedTask(log, '1');
    const second = gatedTask(log, '2');
    const failed = mailbox.run('k', first.task);
    const next = mailbox.run('k', second.task);
    const thrower = mailbox.run('k', () => {
      log.push('start sync-throw');
      throw new Error('sync');
    });
    const last = mailbox.run('k', async () => 'last');
    first.gate.reject(new Error('first failed'));
    await expect(failed).rejects.toThrow('first failed');
    await flushMicrotasks();
    expect(log).toEqual(['start 1', 'end 1', 'start 2']);
    second.gate.resolve('second');
    await expect(next).resolves.toBe('second');
    await expect(thrower).rejects.toThrow('sync');
    await expect(last).resolves.toBe('last');
    expect(log).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start sync-throw']);
  });

  it('runs tasks of different keys concurrently', async () => {
    const mailbox = new KeyMailbox();
    const log: string[] = [];
    const a = gatedTask(log, 'a');
    const b = gatedTask(log, 'b');
    const ra = mailbox.run('ka', a.task);
    const rb = mailbox.run('kb', b.task);
    await flushMicrotasks();
    expect(log).toEqual(['start a', 'start b']);
    expect(mailbox.activeKeys).toBe(2);
    b.gate.resolve('b');
    await expect(rb).resolves.toBe('b');
    a.gate.resolve('a');
    await expect(ra).resolves.toBe('a');
  });

  it('holds no state for a key once its work has settled', async () => {
    const mailbox = new KeyMailbox();
    await mailbox.run('k', async () => 1);
    await mailbox.run('k', async () => {
      throw new Error('x');
    }).catch(() => undefined);
    await flushMicrotasks();
    expect(mailbox.activeKeys).toBe(0);
  });

  it('drains: resolves only after every task enqueued so far has settled, rejected ones included', async () => {
    const mailbox = new KeyMailbox();
    const log: string[] = [];
    const a1 = gatedTask(log, 'a1');
    const a2 = gatedTask(log, 'a2');
    const b1 = gatedTask(log, 'b1');
    void mailbox.run('a', a1.task).catch(() => undefined);
    void mailbox.run('a', a2.task);
    void mailbox.run('b', b1.task);
    let drained = false;
    const draining = mailbox.drain().then(() => (drained = true));
    a1.gate.reject(new Error('x'));
    b1.gate.resolve('b');
    await flushMicrotasks();
    expect(drained).toBe(false);
    a2.gate.resolve('a');
    await draining;
    expect(drained).toBe(true);
    expect(mailbox.activeKeys).toBe(0);
    expect(log).toContain('end a2');
  });

  it('drains at once when idle', async () => {
    await expect(new KeyMailbox().drain()).resolves.toBeUndefined();
  });
});
