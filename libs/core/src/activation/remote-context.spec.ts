// A worker-isolated agent sees a RemoteContext whose calls cross a thread boundary; here the boundary is structured cloning (the algorithm postMessage uses) around serveContextCall, so what the agent stages can be compared with the same handler on the event loop without starting a thread.
import { describe, expect, it } from 'vitest';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome } from '../agent/outcome.js';
import { resolveSuspensionPolicy } from '../agent/suspension-policy.js';
import { RetryableError, TerminalError } from '../errors/runtime-error.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { ReplayCache } from '../replay/replay-cache.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { ActivationTimeout } from './activation-timeout.js';
import { AttemptMemo } from './attempt-memo.js';
import { serveContextCall, type ContextChannel, type ContextReply } from './context-call.js';
import { errorFromWire, errorToWire } from './error-wire.js';
import { activationSnapshot, RemoteContext } from './remote-context.js';
import { StagingContext } from './staging-context.js';

function stagingContext(controller = new AbortController(), provider = ScriptedModelProvider.replying('pong')): StagingContext {
  return new StagingContext({
    agent: 'triage',
    key: utf8Bytes('order-42'),
    seq: 3,
    event: utf8Bytes('{"amount":12}'),
    eventTimeMs: T0,
    policy: resolveSuspensionPolicy(undefined),
    stepIndex: 0,
    memory: WorkingMemory.fromBlob(undefined, { nowMs: T0 }),
    cache: ReplayCache.fromBlob(undefined, { nowMs: T0 }),
    provider,
    memo: new AttemptMemo(),
    signal: () => controller.signal,
    monotonicMs: new ManualTimers(5_000).monotonicMs,
  });
}

/** The real context behind a thread boundary: every call and every reply is structured-cloned. */
function across(ctx: StagingContext): RemoteContext {
  const channel: ContextChannel = (call) => {
    const reply = serveContextCall(ctx, structuredClone(call));
    return reply instanceof Promise ? reply.then((answered): ContextReply => structuredClone(answered)) : structuredClone(reply);
  };
  return new RemoteContext(structuredClone(activationSnapshot(ctx)), channel, new AbortController().signal);
}

/** An agent that uses most of the context: memory, outputs, an intent, an approval, a model call. */
async function triage(ctx: ActivationContext): Promise<Outcome> {
  const { amount } = ctx.eventJson<{ amount: number }>();
  const seen = (ctx.memory.getJson<number>('seen') ?? 0) + 1;
  ctx.memory.setJson('seen', seen);
  ctx.memory.append('amounts', String(amount), { maxItems: 4 });
  ctx.emit({ seen, ring: ctx.memory.ringText('amounts'), key: ctx.keyText });
  const answer = await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: `amount ${amount}` }] });
  const refund = ctx.act('refund', { amount });
  const approval = ctx.requestApproval({ refund });
  return { kind: 'suspend', snapshot: JSON.stringify({ answer: answer.text, refund, approval, size: ctx.memory.sizeBytes }) };
}

describe('RemoteContext', () => {
  it('stages byte-identical outputs, intents, memory and replay-cache entries as the same handler on the event loop', async () => {
    const direct = stagingContext();
    const inline = await triage(direct);
    const behind = stagingContext();
    const remote = await triage(across(behind));

    expect(remote).toEqual(inline);
    expect(behind.outputs).toEqual(direct.outputs);
    expect(behind.intents).toEqual(direct.intents);
    expect(behind.intents.map((i) => i.toolName)).toEqual(['refund', 'approval']);
    expect(behind.memory.toBlob()).toEqual(direct.memory.toBlob());
    expect(behind.replayCache.toBlob()).toEqual(direct.replayCache.toBlob());
    expect(behind.stepIndex).toBe(direct.stepIndex);
    expect(behind.tally.providerCalls).toBe(1);
  });

  it('carries the attempt facts across: key, seq, event time and the event bytes', () => {
    const remote = across(stagingContext());
    expect(remote.keyText).toBe('order-42');
    expect(remote.seq).toBe(3);
    expect(remote.eventTimeMs).toBe(T0);
    expect(remote.eventText()).toBe('{"amount":12}');
    expect(remote.isResume).toBe(false);
  });

  it('refuses every call of an abandoned attempt with its ActivationTimeout, so nothing more is staged', () => {
    const controller = new AbortController();
    const behind = stagingContext(controller);
    const remote = across(behind);
    controller.abort(new ActivationTimeout(50));
    expect(() => remote.emit('late')).toThrow(/activation exceeded 50 ms/);
    expect(() => remote.act('refund', {})).toThrow(expect.objectContaining({ name: 'ActivationTimeout' }));
    expect(behind.outputs).toEqual([]);
    expect(behind.intents).toEqual([]);
  });

  it('rethrows what the real context threw as the runtime class that decides retry, its name kept', () => {
    const remote = across(stagingContext());
    let thrown: unknown;
    try {
      remote.memory.set('big', new Uint8Array(2 * 1024 * 1024));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TerminalError);
    expect((thrown as Error).name).toBe('MemoryOverflow');
  });
});

describe('error wire form', () => {
  it('rebuilds a RetryableError with its delay, a TerminalError and a plain error from their clones', () => {
    const retryable = errorFromWire(structuredClone(errorToWire(new RetryableError('busy', { retryAfterMs: 250 }))));
    expect(retryable).toBeInstanceOf(RetryableError);
    expect((retryable as RetryableError).retryAfterMs).toBe(250);
    expect(errorFromWire(structuredClone(errorToWire(new TerminalError('no'))))).toBeInstanceOf(TerminalError);
    const plain = errorFromWire(structuredClone(errorToWire(new RangeError('out'))));
    expect(plain).not.toBeInstanceOf(TerminalError);
    expect(plain).not.toBeInstanceOf(RetryableError);
    expect(plain.name).toBe('RangeError');
    expect(plain.message).toBe('out');
    expect(errorFromWire(errorToWire('a string')).message).toBe('a string');
  });
});
