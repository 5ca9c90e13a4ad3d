// The staging context is the whole agent-facing surface of one attempt; with a scripted provider and a manual clock every staging, step and replay-cache rule (§1.C, D09, D10) is checkable without an actor or a bucket.
import { resolveSuspensionPolicy } from '../agent/suspension-policy.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CacheBlobDoc } from '../actor/actor-document.js';
import type { ModelProvider, ModelRequest } from '../model/model-request.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { replayCacheKey } from '../replay/replay-cache-key.js';
import { ReplayCache } from '../replay/replay-cache.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { deferred, ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { ActivationTimeout } from './activation-timeout.js';
import { AttemptAbort } from './attempt-abort.js';
import { AttemptMemo } from './attempt-memo.js';
import { EventDecodeError } from './event-decode-error.js';
import { StagingContext, type StagingContextInit } from './staging-context.js';

const KEY = utf8Bytes('order-42');
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const request = (content: string): ModelRequest => ({ model: 'fake-1', messages: [{ role: 'user', content }] });

function contextFor(overrides: Partial<StagingContextInit> = {}): StagingContext {
  return new StagingContext({ ...contextInit(), ...overrides });
}

function contextInit(): StagingContextInit {
  const clock = new ManualTimers(5_000);
  return {
    agent: 'triage',
    key: KEY,
    seq: 3,
    event: utf8Bytes('{"amount":12}'),
    eventTimeMs: T0,
    policy: resolveSuspensionPolicy(undefined),
    stepIndex: 0,
    memory: WorkingMemory.fromBlob(undefined, { nowMs: T0 }),
    cache: ReplayCache.fromBlob(undefined, { nowMs: T0 }),
    provider: ScriptedModelProvider.replying('pong'),
    memo: new AttemptMemo(),
    signal: () => new AbortController().signal,
    monotonicMs: clock.monotonicMs,
  };
}

describe('StagingContext', () => {
  describe('the event and the key', () => {
    it('exposes the event as bytes, text and JSON, and the key as text', () => {
      const ctx = contextFor();
      expect(ctx.eventText()).toBe('{"amount":12}');
      expect(ctx.eventJson()).toEqual({ amount: 12 });
      expect(ctx.keyText).toBe('order-42');
      expect(ctx.eventTimeMs).toBe(T0);
      expect(ctx.seq).toBe(3);
    });

    it('throws EventDecodeError (terminal) for an event that is not JSON', () => {
      const ctx = contextFor({ event: utf8Bytes('not json') });
      expect(() => ctx.eventJson()).toThrow(EventDecodeError);
      expect(() => ctx.eventJson()).toThrow(/event is not JSON/);
    });

    it('throws EventDecodeError when the activation has no event', () => {
      const ctx = contextFor({ event: undefined });
      expect(() => ctx.eventText()).toThrow(EventDecodeError);
      expect(() => ctx.eventJson()).toThrow(EventDecodeError);
    });
  });

  describe('outputs (C07)', () => {
    it('keeps emitted outputs in order, as UTF-8 for strings, canonical JSON for objects and bytes verbatim', () => {
      const ctx = contextFor();
      ctx.emit('first');
      ctx.emit({ z: 1, a: [true, null] });
      ctx.emit(Uint8Array.from([0, 255]));
      expect(ctx.outputs.map((o) => Buffer.from(o).toString('hex'))).toEqual([
        Buffer.from('first').toString('hex'),
        Buffer.from('{"a":[true,null],"z":1}').toString('hex'),
        '00ff',
      ]);
    });

    it('drops empty outputs: undefined, an empty string and empty bytes publish nothing', () => {
      const ctx = contextFor();
      ctx.emit(undefined);
      ctx.emit('');
      ctx.emit(new Uint8Array(0));
      expect(ctx.outputs).toHaveLength(0);
    });
  });

  describe('model calls through the replay cache (D09, D10)', () => {
    it('calls the provider on a miss, returns its body verbatim and stages the answer in the cache and the attempt memo', async () => {
      const provider = ScriptedModelProvider.replying('pong');
      const memo = new AttemptMemo();
      const ctx = contextFor({ provider, memo });
      const response = await ctx.callModel(request('ping'));
      expect(provider.calls).toBe(1);
      expect(text(response.body)).toBe('pong');
      expect(response.text).toBe('pong');
      expect(ctx.tally.modelCalls.at(-1)?.cacheHit).toBe(false);
      expect(response.digest).toBe(createHash('sha256').update('pong').digest('hex'));
      const cacheKey = replayCacheKey(request('ping'), KEY, 3);
      expect(ctx.replayCache.toBlob().entries.map((e) => e.cacheKey)).toEqual([cacheKey]);
      expect(memo.get(cacheKey)).toEqual(utf8Bytes('pong'));
    });

    it('answers an identical request in the same scope from the staged cache without calling the provider again', async () => {
      const provider = ScriptedModelProvider.replying('pong');
      const ctx = contextFor({ provider });
      await ctx.callModel(request('ping'));
      const again = await ctx.callModel(request('ping'));
      expect(provider.calls).toBe(1);
      expect(ctx.tally.modelCalls.at(-1)?.cacheHit).toBe(true);
      expect(text(again.body)).toBe('pong');
    });

    it('answers from the committed cache of the same (key, seq) with zero provider calls', async () => {
      const first = contextFor();
      await first.callModel(request('ping'));
      const committed: CacheBlobDoc = first.replayCache.toBlob();
      const provider = ScriptedModelProvider.replying('different');
      const rerun = contextFor({ provider, cache: ReplayCache.fromBlob(committed, { nowMs: T0 }) });
      const response = await rerun.callModel(request('ping'));
      expect(provider.calls).toBe(0);
      expect(rerun.tally.modelCalls.at(-1)?.cacheHit).toBe(true);
      expect(text(response.body)).toBe('pong');
    });

    it('misses for a new seq even with the committed cache of the previous one (a new scope by design)', async () => {
      const first = contextFor({ seq: 3 });
      await first.callModel(request('ping'));
      const provider = ScriptedModelProvider.replying('pong');
      const next = contextFor({ seq: 4, provider, cache: ReplayCache.fromBlob(first.replayCache.toBlob(), { nowMs: T0 }) });
      await next.callModel(request('ping'));
      expect(provider.calls).toBe(1);
    });

    it('answers from the attempt memo of a failed commit without calling the provider, and stages the same cache bytes', async () => {
      const memo = new AttemptMemo();
      const original = contextFor({ memo });
      await original.callModel(request('ping'));
      const provider = ScriptedModelProvider.replying('never');
      const retry = contextFor({ memo, provider });
      const response = await retry.callModel(request('ping'));
      expect(provider.calls).toBe(0);
      expect(retry.tally.modelCalls.at(-1)?.cacheHit).toBe(true);
      expect(text(response.body)).toBe('pong');
      expect(retry.replayCache.toBlob()).toEqual(original.replayCache.toBlob());
    });

    it('never serves the memo of another seq', async () => {
      const memo = new AttemptMemo();
      await contextFor({ memo, seq: 3 }).callModel(request('ping'));
      const provider = ScriptedModelProvider.replying('pong');
      await contextFor({ memo, seq: 4, provider }).callModel(request('ping'));
      expect(provider.calls).toBe(1);
    });

    it('advances the step on every model call, hits included, starting from the given cursor (C02)', async () => {
      const ctx = contextFor({ stepIndex: 2 });
      expect(ctx.position).toEqual({ step: 2, after: 'activation_start' });
      await ctx.callModel(request('a'));
      await ctx.callModel(request('a'));
      await ctx.callModel(request('b'));
      expect(ctx.stepIndex).toBe(5);
      expect(ctx.position).toEqual({ step: 5, after: 'llm_call' });
      expect(ctx.tally.modelCalls.map((c) => c.step)).toEqual([2, 3, 4]);
    });

    it('counts and times only provider calls; a hit is traced with duration 0 and the stored usage (D10)', async () => {
      const clock = new ManualTimers(1_000);
      const answer = deferred<Uint8Array>();
      const provider: ModelProvider = {
        name: 'metered',
        complete: () => answer.promise,
        decode: (body) => ({ text: `decoded:${text(body)}`, usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 } }),
      };
      const ctx = contextFor({ provider, monotonicMs: clock.monotonicMs });
      const pending = ctx.callModel(request('ping'));
      await clock.advanceBy(250);
      answer.resolve(utf8Bytes('pong'));
      const miss = await pending;
      const hit = await ctx.callModel(request('ping'));
      expect(miss.text).toBe('decoded:pong');
      expect(hit.usage).toEqual({ promptTokens: 3, completionTokens: 4, totalTokens: 7 });
      expect(ctx.tally).toMatchObject({ providerCalls: 1, cacheHits: 1, providerMs: 250 });
      expect(ctx.tally.modelCalls).toEqual([
        { step: 0, model: 'fake-1', cacheHit: false, durationMs: 250, promptTokens: 3, completionTokens: 4 },
        { step: 1, model: 'fake-1', cacheHit: true, durationMs: 0, promptTokens: 3, completionTokens: 4 },
      ]);
    });

    it('hands the agent the tool calls and stop reason as structured values, from fresh and cached bytes alike', async () => {
      const toolCalls = [{ id: 'call_1', name: 'lookup', arguments: { q: 'nats' } }];
      const provider: ModelProvider = {
        name: 'tooling',
        complete: () => Promise.resolve(utf8Bytes('raw')),
        decode: () => ({ text: '', toolCalls, stopReason: 'tool_use' }),
      };
      const ctx = contextFor({ provider });
      const fresh = await ctx.callModel(request('ping'));
      const cached = await ctx.callModel(request('ping'));
      expect(fresh).toMatchObject({ text: '', toolCalls, stopReason: 'tool_use' });
      expect(cached).toMatchObject({ toolCalls, stopReason: 'tool_use' });
      expect((await contextFor().callModel(request('x'))).toolCalls).toEqual([]);
    });

    it('hands the attempt signal to the provider', async () => {
      const controller = new AbortController();
      const provider = ScriptedModelProvider.hanging();
      const ctx = contextFor({ provider, signal: () => controller.signal });
      const pending = ctx.callModel(request('ping'));
      controller.abort(new ActivationTimeout(10));
      await expect(pending).rejects.toBeInstanceOf(ActivationTimeout);
    });
  });

  describe('an abandoned attempt', () => {
    it('refuses to emit or call the model once its signal aborted, without reaching the provider', async () => {
      const controller = new AbortController();
      const provider = ScriptedModelProvider.replying('pong');
      const ctx = contextFor({ provider, signal: () => controller.signal });
      controller.abort(new ActivationTimeout(10));
      expect(() => ctx.emit('late')).toThrow(ActivationTimeout);
      await expect(ctx.callModel(request('ping'))).rejects.toBeInstanceOf(ActivationTimeout);
      expect(provider.calls).toBe(0);
      expect(ctx.outputs).toHaveLength(0);
    });

    it('drops an answer that arrives after the abort: nothing reaches the cache or the memo', async () => {
      const controller = new AbortController();
      const answer = deferred<Uint8Array>();
      const memo = new AttemptMemo();
      const ctx = contextFor({ provider: new ScriptedModelProvider(() => answer.promise), memo, signal: () => controller.signal });
      const pending = ctx.callModel(request('ping'));
      controller.abort(new ActivationTimeout(10));
      answer.resolve(utf8Bytes('late'));
      await expect(pending).rejects.toBeInstanceOf(ActivationTimeout);
      expect(memo.size).toBe(0);
      expect(ctx.replayCache.toBlob().entries).toHaveLength(0);
    });

    it('reads its signal only when something needs it, so an attempt that stages nothing creates none', () => {
      const controller = new AbortController();
      let reads = 0;
      const ctx = new StagingContext({
        ...contextInit(),
        signal: () => {
          reads += 1;
          return controller.signal;
        },
      });
      expect(ctx.eventJson()).toEqual({ amount: 12 });
      expect(reads).toBe(0);
      ctx.emit('out');
      expect(reads).toBeGreaterThan(0);
      expect(ctx.signal).toBe(controller.signal);
    });

    it('stages without creating a signal when its attempt can say it is live, and refuses once it is abandoned', async () => {
      const abort = new AttemptAbort();
      let reads = 0;
      const provider = ScriptedModelProvider.replying('pong');
      const ctx = new StagingContext({
        ...contextInit(),
        provider,
        signal: () => {
          reads += 1;
          return abort.signal;
        },
        abandoned: () => abort.abandoned,
      });
      ctx.emit('out');
      expect(reads).toBe(0);
      abort.abort(new ActivationTimeout(10));
      expect(() => ctx.emit('late')).toThrow(ActivationTimeout);
      await expect(ctx.callModel(request('ping'))).rejects.toBeInstanceOf(ActivationTimeout);
      expect(provider.calls).toBe(0);
      expect(ctx.outputs).toHaveLength(1);
    });
  });
});

describe('the model response an agent sees', () => {
  it('is identical whether the provider or the replay cache answered, so a retry cannot branch on it', async () => {
    const provider = ScriptedModelProvider.replying('pong');
    const memo = new AttemptMemo();
    const first = await contextFor({ provider, memo }).callModel(request('ping'));
    const retried = await contextFor({ provider, memo }).callModel(request('ping'));
    expect(provider.calls).toBe(1);
    expect(retried).toEqual(first);
  });
});
