// The runner owns the activation timeout (invariant 6); a manual clock makes a 30 s timeout instant and lets the spec interleave the abandoned handler with the runner at will.
import { resolveSuspensionPolicy } from '../agent/suspension-policy.js';
import { describe, expect, it } from 'vitest';
import type { AgentHandler } from '../agent/agent-definition.js';
import type { Outcome } from '../agent/outcome.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { ReplayCache } from '../replay/replay-cache.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { flushMicrotasks, ManualTimers } from '../testing/manual-timers.js';
import { deferred, ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { ActivationTimeout } from './activation-timeout.js';
import { AttemptMemo } from './attempt-memo.js';
import { InvalidOutcomeError, runActivation, type ActivationResult } from './run-activation.js';
import { StagingContext } from './staging-context.js';

function attempt(handler: AgentHandler, timeoutMs = 30_000, timers = new ManualTimers()): { result: Promise<ActivationResult>; timers: ManualTimers; controller: AbortController } {
  const controller = new AbortController();
  const ctx = new StagingContext({
    agent: 'triage',
    key: utf8Bytes('k'),
    seq: 0,
    event: utf8Bytes('e'),
    eventTimeMs: T0,
    policy: resolveSuspensionPolicy(undefined),
    stepIndex: 0,
    memory: WorkingMemory.fromBlob(undefined, { nowMs: T0 }),
    cache: ReplayCache.fromBlob(undefined, { nowMs: T0 }),
    provider: ScriptedModelProvider.replying('pong'),
    memo: new AttemptMemo(),
    signal: () => controller.signal,
    monotonicMs: timers.monotonicMs,
  });
  return { result: runActivation(handler, ctx, { timeoutMs, timers, controller, monotonicMs: timers.monotonicMs }), timers, controller };
}

describe('runActivation', () => {
  it('reports a completion and cancels its timeout timer', async () => {
    const { result, timers } = attempt(() => ({ kind: 'complete', output: 'done' }));
    await expect(result).resolves.toEqual({ kind: 'completed', outcome: { kind: 'complete', output: 'done' } });
    expect(timers.pending).toBe(0);
  });

  it('times out a synchronous handler that returns after its deadline, whatever it returned (the timer could not pre-empt it)', async () => {
    const timers = new ManualTimers();
    const { result } = attempt(
      () => {
        timers.stall(30_001);
        return { kind: 'complete', output: 'too late' };
      },
      30_000,
      timers,
    );
    await expect(result).resolves.toEqual({ kind: 'timed_out', timeoutMs: 30_000 });
  });

  it('times out a synchronous handler that throws after its deadline', async () => {
    const timers = new ManualTimers();
    const { result } = attempt(
      () => {
        timers.stall(30_001);
        throw new Error('late');
      },
      30_000,
      timers,
    );
    await expect(result).resolves.toEqual({ kind: 'timed_out', timeoutMs: 30_000 });
  });

  it('reports a suspension', async () => {
    const { result } = attempt(async () => ({ kind: 'suspend', timeoutMs: 5 }));
    await expect(result).resolves.toEqual({ kind: 'suspended', outcome: { kind: 'suspend', timeoutMs: 5 } });
  });

  it('reports a throw with the error and the position it happened at', async () => {
    const { result } = attempt(async (ctx) => {
      await ctx.callModel({ model: 'm', messages: [] });
      throw new RangeError('bad amount');
    });
    const ended = await result;
    expect(ended.kind).toBe('failed');
    if (ended.kind !== 'failed') return;
    expect(ended.error).toBeInstanceOf(RangeError);
    expect(ended.position).toEqual({ step: 1, after: 'llm_call' });
  });

  it('normalises a thrown non-error into an Error', async () => {
    const { result } = attempt(() => {
      throw 'plain string';
    });
    const ended = await result;
    expect(ended.kind === 'failed' && ended.error.message).toBe('plain string');
  });

  it('fails an agent that returns something other than complete(...) or suspend(...)', async () => {
    const { result } = attempt((() => 42) as unknown as AgentHandler);
    const ended = await result;
    expect(ended.kind === 'failed' && ended.error).toBeInstanceOf(InvalidOutcomeError);
    expect(ended.kind === 'failed' && ended.position).toEqual({ step: 0, after: 'activation_start' });
  });

  it('times out on the injected timers, aborting the signal with ActivationTimeout', async () => {
    const { result, timers, controller } = attempt(() => new Promise<Outcome>(() => undefined), 30_000);
    expect(timers.requestedDelays).toEqual([30_000]);
    const ended = await timers.settle(result);
    expect(ended).toEqual({ kind: 'timed_out', timeoutMs: 30_000 });
    expect(timers.monotonicMs()).toBe(30_000);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBeInstanceOf(ActivationTimeout);
    expect((controller.signal.reason as ActivationTimeout).timeoutMs).toBe(30_000);
  });

  it('does not time out a handler that finishes just before the deadline', async () => {
    const timers = new ManualTimers();
    const { result } = attempt(
      async (ctx) => {
        await new Promise<void>((resolve) => timers.setTimeout(resolve, 29_999));
        return { kind: 'complete', output: ctx.seq };
      },
      30_000,
      timers,
    );
    await expect(timers.settle(result)).resolves.toMatchObject({ kind: 'completed' });
  });

  it('stays timed out whatever the abandoned handler does afterwards', async () => {
    const gate = deferred<void>();
    let lateError: unknown;
    const { result, timers } = attempt(async (ctx) => {
      await gate.promise;
      try {
        ctx.emit('late');
      } catch (error) {
        lateError = error;
      }
      return { kind: 'complete', output: 'late' };
    });
    await expect(timers.settle(result)).resolves.toEqual({ kind: 'timed_out', timeoutMs: 30_000 });
    gate.resolve();
    await flushMicrotasks();
    expect(lateError).toBeInstanceOf(ActivationTimeout);
  });
});
