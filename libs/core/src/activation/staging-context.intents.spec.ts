// The staging context alone decides intent identity, fields and step accounting (C02–C05) and what a resume sees (B03, B11, B12); it is pure given its init, so every rule is checkable here without an actor, a store or an effector.
import { describe, expect, it, vi } from 'vitest';
import { IntentKind } from '../actor/actor-document.js';
import { encodeToolIntent } from '../actor/state-codec.js';
import { resolveSuspensionPolicy, type SuspensionPolicy } from '../agent/suspension-policy.js';
import { intentId } from '../ids/intent-id.js';
import { traceId } from '../ids/trace-id.js';
import { CanonicalJsonError, type JsonValue } from '../json/canonical-json.js';
import { WorkingMemory } from '../memory/working-memory.js';
import { ReplayCache } from '../replay/replay-cache.js';
import { T0, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import type { AnyToolDefinition, ToolCallContext } from '../tools/tool-definition.js';
import { SideEffectToolError, ToolArgumentError, ToolNotFoundError } from '../tools/tool-errors.js';
import { ActivationTimeout } from './activation-timeout.js';
import { AttemptMemo } from './attempt-memo.js';
import { EventDecodeError } from './event-decode-error.js';
import { StagingContext, type StagingContextInit } from './staging-context.js';
import { approvalView, toolResultView } from './tool-result-view.js';

const KEY = utf8Bytes('order-42');
const SEQ = 3;
const HOUR = 3_600_000;
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A read-only lookup that doubles `n`, validating its arguments with a plain function. */
const lookup: AnyToolDefinition = {
  name: 'lookup',
  sideEffect: false,
  schema: (value: unknown) => {
    const n = (value as { n?: unknown }).n;
    if (typeof n !== 'number') throw new Error('n must be a number');
    return { n };
  },
  handler: ({ n }: { n: number }) => ({ doubled: n * 2 }),
};

function chargeTool(): AnyToolDefinition & { handler: ReturnType<typeof vi.fn> } {
  return { name: 'charge', sideEffect: true, handler: vi.fn(() => 'charged') };
}

function contextFor(overrides: Partial<StagingContextInit> & { suspension?: SuspensionPolicy } = {}): StagingContext {
  const clock = new ManualTimers(5_000);
  const { suspension, ...init } = overrides;
  return new StagingContext({
    agent: 'triage',
    key: KEY,
    seq: SEQ,
    event: utf8Bytes('{"amount":12}'),
    eventTimeMs: T0,
    policy: resolveSuspensionPolicy(suspension),
    stepIndex: 0,
    memory: WorkingMemory.fromBlob(undefined, { nowMs: T0 }),
    cache: ReplayCache.fromBlob(undefined, { nowMs: T0 }),
    provider: ScriptedModelProvider.replying('pong'),
    memo: new AttemptMemo(),
    signal: () => new AbortController().signal,
    monotonicMs: clock.monotonicMs,
    ...init,
  });
}

describe('StagingContext intents', () => {
  describe('act (C05)', () => {
    it('stages a TOOL intent whose every field derives from (key, seq, step) and the event time, and returns its id', () => {
      const ctx = contextFor();
      const id = ctx.act('charge', { amount: 12, currency: 'EUR' });
      expect(id).toBe(intentId('triage', KEY, SEQ, 0));
      expect(ctx.intents).toEqual([
        {
          intentId: id,
          agent: 'triage',
          entityKey: KEY,
          seq: SEQ,
          stepIndex: 0,
          toolName: 'charge',
          argsJson: '{"amount":12,"currency":"EUR"}',
          createdAtMs: T0,
          expiresAtMs: T0 + HOUR,
          attempt: 0,
          kind: IntentKind.Tool,
          traceId: traceId('triage', KEY, SEQ),
          signatureScheme: 0,
          signingKeyId: '',
          signature: new Uint8Array(0),
        },
      ]);
    });

    it("uses an explicit TTL, else the policy's intent TTL, else the 1 h default", () => {
      const explicit = contextFor({ suspension: { intentTtlMs: 60_000 } });
      explicit.act('charge', {}, { ttlMs: 250 });
      explicit.act('charge', {});
      expect(explicit.intents.map((i) => i.expiresAtMs)).toEqual([T0 + 250, T0 + 60_000]);
      const defaulted = contextFor();
      defaulted.act('charge');
      expect(defaulted.intents[0]?.expiresAtMs).toBe(T0 + HOUR);
      expect(defaulted.intents[0]?.argsJson).toBe('{}');
    });

    it('keeps expires_at positive even at a zero event time', () => {
      const ctx = contextFor({ eventTimeMs: 0 });
      ctx.act('charge', {}, { ttlMs: 1 });
      expect(ctx.intents[0]?.expiresAtMs).toBe(1);
    });

    it('refuses a TTL that is not a positive finite number, consuming no step', () => {
      const ctx = contextFor();
      for (const ttlMs of [0, -1, Number.NaN, Infinity]) expect(() => ctx.act('charge', {}, { ttlMs })).toThrow(ToolArgumentError);
      expect(ctx.stepIndex).toBe(0);
      expect(ctx.intents).toHaveLength(0);
    });

    it('stamps the event time, never the processing clock: two clocks stage byte-identical intents', () => {
      const bytes = [0, 9_999_999].map((start) => {
        const ctx = contextFor({ monotonicMs: new ManualTimers(start).monotonicMs });
        ctx.act('charge', { amount: 1 });
        return hex(encodeToolIntent(ctx.intents[0]!));
      });
      expect(bytes[1]).toBe(bytes[0]);
    });
  });

  describe('requestApproval (C05)', () => {
    it("stages an APPROVAL intent on the 'approval' channel with the same id derivation and step sequence as act", () => {
      const ctx = contextFor();
      ctx.act('charge', { amount: 1 });
      const id = ctx.requestApproval({ amount: 900 });
      expect(id).toBe(intentId('triage', KEY, SEQ, 1));
      expect(ctx.intents[1]).toMatchObject({ intentId: id, kind: IntentKind.Approval, toolName: 'approval', stepIndex: 1, argsJson: '{"amount":900}', createdAtMs: T0, expiresAtMs: T0 + HOUR, traceId: traceId('triage', KEY, SEQ) });
    });

    it('uses a named channel and TTL', () => {
      const ctx = contextFor();
      ctx.requestApproval({}, { channel: 'finance', ttlMs: 5_000 });
      expect(ctx.intents[0]).toMatchObject({ toolName: 'finance', expiresAtMs: T0 + 5_000, kind: IntentKind.Approval });
    });

    it("keeps the 'approval' channel for requests when the policy escalates on another channel (E01)", () => {
      const ctx = contextFor({ suspension: { onTimeout: 'escalate', escalationChannel: 'pager' } });
      ctx.requestApproval({ amount: 900 });
      expect(ctx.intents[0]?.toolName).toBe('approval');
    });

    it('refuses a channel that is not a subject-safe name, consuming no step', () => {
      const ctx = contextFor();
      for (const channel of ['', 'Pager', 'a.b', 'x y']) expect(() => ctx.requestApproval({}, { channel })).toThrow(ToolArgumentError);
      expect(ctx.stepIndex).toBe(0);
    });

    it("performs no tool lookup: an agent's declared tools need not name the channel", () => {
      const charge = chargeTool();
      const ctx = contextFor({ tools: [lookup, charge] });
      expect(ctx.requestApproval({ why: 'big' })).toBe(intentId('triage', KEY, SEQ, 0));
      expect(charge.handler).not.toHaveBeenCalled();
    });
  });

  describe('canonical arguments (C03)', () => {
    it('serializes arguments with sorted keys, so insertion order changes nothing', () => {
      const a = contextFor();
      const b = contextFor();
      a.act('charge', { b: 2, a: { y: 1, x: [3, { d: 0, c: 1 }] } });
      b.act('charge', { a: { x: [3, { c: 1, d: 0 }], y: 1 }, b: 2 });
      expect(a.intents[0]?.argsJson).toBe('{"a":{"x":[3,{"c":1,"d":0}],"y":1},"b":2}');
      expect(hex(encodeToolIntent(b.intents[0]!))).toBe(hex(encodeToolIntent(a.intents[0]!)));
    });

    it('preserves Unicode in arguments', () => {
      const ctx = contextFor();
      ctx.requestApproval({ note: 'Zahlung über 900 € 😀' });
      expect(ctx.intents[0]?.argsJson).toBe('{"note":"Zahlung über 900 € 😀"}');
    });

    it('refuses NaN and infinities, consuming no step', () => {
      const ctx = contextFor();
      const bad: JsonValue[] = [{ amount: Number.NaN }, { amount: Infinity }, [-Infinity]];
      for (const args of bad) {
        expect(() => ctx.act('charge', args)).toThrow(CanonicalJsonError);
        expect(() => ctx.requestApproval(args)).toThrow(CanonicalJsonError);
      }
      expect(ctx.stepIndex).toBe(0);
      expect(ctx.intents).toHaveLength(0);
    });

    it('re-stages byte-identical tool and approval intents when the same path is replayed', () => {
      const run = (): string[] => {
        const ctx = contextFor({ stepIndex: 2 });
        ctx.act('charge', { amount: 12 });
        ctx.requestApproval({ amount: 12 }, { channel: 'finance' });
        return ctx.intents.map((i) => hex(encodeToolIntent(i)));
      };
      expect(run()).toEqual(run());
    });
  });

  describe('the effect boundary (C04)', () => {
    it('runs a declared read-only tool inline with its validated arguments and the attempt signal', async () => {
      const controller = new AbortController();
      const seen: ToolCallContext[] = [];
      const spying: AnyToolDefinition = { ...lookup, handler: (args: { n: number }, context: ToolCallContext) => (seen.push(context), lookup.handler(args, context)) };
      const ctx = contextFor({ tools: [spying], signal: () => controller.signal });
      expect(await ctx.runTool('lookup', { n: 21 })).toEqual({ doubled: 42 });
      expect(seen.map((c) => c.signal)).toEqual([controller.signal]);
      expect(ctx.tally.toolCalls).toBe(1);
    });

    it('refuses a side-effecting tool inline without running or counting it', async () => {
      const charge = chargeTool();
      const ctx = contextFor({ tools: [charge] });
      await expect(ctx.runTool('charge', { amount: 1 })).rejects.toBeInstanceOf(SideEffectToolError);
      expect(charge.handler).not.toHaveBeenCalled();
      expect(ctx.tally.toolCalls).toBe(0);
    });

    it('refuses an unknown tool inline, and a call whose arguments fail the schema, without running it', async () => {
      const handler = vi.fn(lookup.handler);
      const ctx = contextFor({ tools: [{ ...lookup, handler }] });
      await expect(ctx.runTool('missing')).rejects.toBeInstanceOf(ToolNotFoundError);
      await expect(ctx.runTool('lookup', { n: 'x' })).rejects.toBeInstanceOf(ToolArgumentError);
      expect(handler).not.toHaveBeenCalled();
      expect(ctx.tally.toolCalls).toBe(0);
    });

    it('refuses to stage a read-only tool as an intent', () => {
      const ctx = contextFor({ tools: [lookup] });
      expect(() => ctx.act('lookup', { n: 1 })).toThrow(SideEffectToolError);
      expect(ctx.intents).toHaveLength(0);
      expect(ctx.stepIndex).toBe(0);
    });

    it('refuses to stage a tool the agent does not declare, when it declares tools', () => {
      const ctx = contextFor({ tools: [lookup, chargeTool()] });
      expect(() => ctx.act('refund', {})).toThrow(ToolNotFoundError);
      expect(ctx.stepIndex).toBe(0);
    });

    it('accepts any well-formed tool name when the agent declares no tools (the effector rejects unknown ones)', () => {
      const ctx = contextFor();
      expect(ctx.act('refund', {})).toBe(intentId('triage', KEY, SEQ, 0));
      for (const name of ['', 'Refund', 'a.b', 'tool>']) expect(() => ctx.act(name)).toThrow(ToolNotFoundError);
      expect(ctx.stepIndex).toBe(1);
    });

    it('never executes a tool it stages', () => {
      const charge = chargeTool();
      const ctx = contextFor({ tools: [charge] });
      ctx.act('charge', { amount: 1 });
      expect(charge.handler).not.toHaveBeenCalled();
      expect(ctx.tally).toMatchObject({ intents: 1, toolCalls: 0 });
    });
  });

  describe('step accounting (C02)', () => {
    it('advances the step on every model call, act and approval request, but not on inline tool calls', async () => {
      const ctx = contextFor({ tools: [lookup, chargeTool()] });
      await ctx.callModel({ model: 'fake-1', messages: ['plan'] });
      const charged = ctx.act('charge', { amount: 1 });
      await ctx.runTool('lookup', { n: 1 });
      expect(ctx.position).toEqual({ step: 2, after: 'intent_emitted' });
      const approved = ctx.requestApproval({});
      await ctx.runTool('lookup', { n: 2 });
      expect(ctx.position).toEqual({ step: 3, after: 'approval_requested' });
      const refunded = ctx.act('charge', { amount: -1 });
      expect([charged, approved, refunded]).toEqual([1, 2, 3].map((step) => intentId('triage', KEY, SEQ, step)));
      expect(ctx.intents.map((i) => i.stepIndex)).toEqual([1, 2, 3]);
      expect(ctx.stepIndex).toBe(4);
      expect(ctx.tally).toMatchObject({ toolCalls: 2, intents: 3 });
    });

    it('mints the same intent ids whether or not inline tools were called in between', async () => {
      const plain = contextFor({ tools: [lookup, chargeTool()] });
      plain.act('charge', { amount: 1 });
      plain.requestApproval({});
      const withTools = contextFor({ tools: [lookup, chargeTool()] });
      await withTools.runTool('lookup', { n: 1 });
      withTools.act('charge', { amount: 1 });
      await withTools.runTool('lookup', { n: 2 });
      withTools.requestApproval({});
      expect(withTools.intents.map((i) => hex(encodeToolIntent(i)))).toEqual(plain.intents.map((i) => hex(encodeToolIntent(i))));
    });

    it('continues from the cursor it was given, so a resume never reuses an id of its suspension (B02)', () => {
      const resumed = contextFor({ stepIndex: 1 });
      expect(resumed.act('charge', {})).toBe(intentId('triage', KEY, SEQ, 1));
      expect(resumed.act('charge', {})).not.toBe(intentId('triage', KEY, SEQ, 0));
    });
  });

  describe('an abandoned attempt', () => {
    it('refuses to stage intents or run tools once its signal aborted', async () => {
      const controller = new AbortController();
      const charge = chargeTool();
      const ctx = contextFor({ tools: [lookup, charge], signal: () => controller.signal });
      controller.abort(new ActivationTimeout(10));
      expect(() => ctx.act('charge', {})).toThrow(ActivationTimeout);
      expect(() => ctx.requestApproval({})).toThrow(ActivationTimeout);
      await expect(ctx.runTool('lookup', { n: 1 })).rejects.toBeInstanceOf(ActivationTimeout);
      expect(ctx.intents).toHaveLength(0);
      expect(ctx.stepIndex).toBe(0);
    });

    it('drops the answer of an inline tool that settles after the abort', async () => {
      const controller = new AbortController();
      let release!: () => void;
      const slow: AnyToolDefinition = { name: 'slow', sideEffect: false, handler: () => new Promise<string>((resolve) => (release = () => resolve('late'))) };
      const ctx = contextFor({ tools: [slow], signal: () => controller.signal });
      const pending = ctx.runTool('slow', {});
      await Promise.resolve();
      controller.abort(new ActivationTimeout(10));
      release();
      await expect(pending).rejects.toBeInstanceOf(ActivationTimeout);
    });
  });
});

describe('StagingContext resume views', () => {
  const snapshot = utf8Bytes('{"script":"tool","id":"abc"}');

  it('shows a start no resume: no result, no approval, not timed out, no snapshot', () => {
    const ctx = contextFor();
    expect([ctx.isResume, ctx.resumeResult, ctx.resumeApproval, ctx.resumeTimedOut, ctx.snapshot, ctx.snapshotJson()]).toEqual([false, undefined, undefined, false, undefined, undefined]);
  });

  it('shows a resume by a tool result that result and no approval (B11)', () => {
    const result = toolResultView({ intentId: 'i-1', entityKey: KEY, seq: SEQ, status: 2, payload: utf8Bytes('{"code":402}'), errorMessage: 'declined', completedAtMs: T0 + 7 });
    const ctx = contextFor({ event: undefined, resume: { result, timedOut: false, snapshot } });
    expect(ctx.isResume).toBe(true);
    expect(ctx.resumeApproval).toBeUndefined();
    expect(ctx.resumeResult).toMatchObject({ intentId: 'i-1', status: 'error', errorMessage: 'declined', completedAtMs: T0 + 7 });
    expect(ctx.resumeResult?.json()).toEqual({ code: 402 });
    expect(ctx.resumeTimedOut).toBe(false);
  });

  it('shows a resume by a human decision that decision and no result; a denial reads as an answer (B11)', () => {
    const approval = approvalView({ intentId: 'i-2', approved: false, approver: 'bob', decidedAtMs: T0 + 3, reason: 'too much' });
    const ctx = contextFor({ event: undefined, resume: { approval, timedOut: false, snapshot } });
    expect(ctx.resumeResult).toBeUndefined();
    expect(ctx.resumeApproval).toEqual({ intentId: 'i-2', approved: false, approver: 'bob', decidedAtMs: T0 + 3, reason: 'too much' });
  });

  it('shows a deadline denial as timed out', () => {
    const ctx = contextFor({ event: undefined, resume: { timedOut: true, snapshot } });
    expect([ctx.isResume, ctx.resumeTimedOut, ctx.resumeResult, ctx.resumeApproval]).toEqual([true, true, undefined, undefined]);
  });

  it('hands back only the opaque snapshot, raw and as JSON; the event is gone (B12)', () => {
    const ctx = contextFor({ event: undefined, resume: { timedOut: false, snapshot } });
    expect(ctx.snapshot).toBe(snapshot);
    expect(ctx.snapshotJson()).toEqual({ script: 'tool', id: 'abc' });
    expect(ctx.event).toBeUndefined();
    expect(() => ctx.eventText()).toThrow(EventDecodeError);
  });

  it('reads an empty snapshot as no JSON', () => {
    expect(contextFor({ event: undefined, resume: { timedOut: false, snapshot: new Uint8Array(0) } }).snapshotJson()).toBeUndefined();
  });
});
