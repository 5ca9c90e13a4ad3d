// Suspend and resume (B01–B04, B09–B13) are decided by the pure step applyElement; running it on committed documents with a scripted agent pins every continuation field, carried-forward intent, deadline and outbox entry byte for byte, without a store or a broker.
import { describe, expect, it, vi } from 'vitest';
import type { AgentDefinition, AgentHandler } from '../agent/agent-definition.js';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome, SuspendOptions } from '../agent/outcome.js';
import { intentId } from '../ids/intent-id.js';
import { outputMessageId } from '../ids/message-id.js';
import { traceId } from '../ids/trace-id.js';
import { signedIntentMessageId } from '../signing/element-seal.js';
import { signIntent, verifyIntent } from '../signing/intent-signing.js';
import { applyDeps, commitReport, committedDoc, deadlineTimer, outboxErrors, outboxIntents, outboxOutputs } from '../testing/apply-element-fixtures.js';
import { approvalElement, eventElement, resultElement, T0, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { IntentKind, TimerKind, type ActorDocument, type TimerDoc } from './actor-document.js';
import { applyElement } from './apply-element.js';
import type { ApplyDeps } from './apply-result.js';
import { ToolResultStatus } from './inbox-element.js';
import { encodeActorDocument, encodeToolIntent } from './state-codec.js';

const AGENT = 'triage';
const KEY = 'order-42';
const KEY_BYTES = utf8Bytes(KEY);
const KEY_HEX = Buffer.from(KEY_BYTES).toString('hex');
const HOUR = 3_600_000;
const DAY = 86_400_000;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const id = (step: number, seq = 0): string => intentId(AGENT, KEY_BYTES, seq, step);
const suspend = (options: SuspendOptions = {}): Outcome => ({ kind: 'suspend', ...options });
const complete = (output?: string): Outcome => (output === undefined ? { kind: 'complete' } : { kind: 'complete', output });
const agentOf = (handler: AgentHandler, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({ name: AGENT, handler, ...extra });

/** Starts: charges the event's amount and suspends. Resumes: completes `resumed:<status>:<payload>`, or a decision. */
const payments = agentOf((ctx) => {
  if (!ctx.isResume) {
    const charge = ctx.act('charge', { amount: Number(ctx.eventText()) });
    return suspend({ snapshot: JSON.stringify({ charge }) });
  }
  if (ctx.resumeApproval) return complete(ctx.resumeApproval.approved ? 'approved' : `rejected:${ctx.resumeApproval.reason}`);
  const result = ctx.resumeResult;
  return complete(`resumed:${result?.status}:${new TextDecoder().decode(result?.payload)}`);
});

/** Applies `element` and returns the committed document. */
async function step(state: ActorDocument | undefined, element: Parameters<typeof applyElement>[1], agent: AgentDefinition, overrides: Partial<ApplyDeps> = {}): Promise<ActorDocument> {
  return committedDoc(await applyElement(state, element, applyDeps(agent, overrides)));
}

/** What a failure commit must be: the state before, with only these three fields replaced. */
function failureOnly(state: ActorDocument, inboxSeq: number, next: ActorDocument): string {
  return hex(encodeActorDocument({ ...state, lastAppliedSeq: inboxSeq, ownerEpoch: 1, outbox: next.outbox }));
}

describe('applyElement: suspension', () => {
  describe('a suspending start (B01, B10, B13)', () => {
    it('commits no output and exactly one intent, addressed to the effector under the intent id', async () => {
      const element = eventElement(1, KEY, '12', { eventTimeMs: T0 + 5, headers: [{ name: 'traceparent', value: TRACEPARENT }, { name: 'x-other', value: 'dropped' }] });
      const result = await applyElement(undefined, element, applyDeps(payments));
      const next = committedDoc(result);
      expect(outboxOutputs(next)).toEqual([]);
      expect(next.outbox).toHaveLength(1);
      expect(next.outbox[0]).toMatchObject({
        subject: `agents.intents.${AGENT}.charge`,
        msgId: id(0),
        headers: [
          { name: 'Agents-Agent', value: AGENT },
          { name: 'Agents-Seq', value: '0' },
          { name: 'Agents-Event-Time', value: String(T0 + 5) },
          { name: 'traceparent', value: TRACEPARENT },
        ],
      });
      expect(hex(next.outbox[0]?.payload)).toBe(hex(encodeToolIntent(next.pending[0]!)));
      expect(commitReport(result)).toMatchObject({ status: 'suspended', seq: 0, outputs: 0, intents: 1, resumed: false });
    });

    it('persists the continuation, the pending intent and one deadline timer, and advances seq', async () => {
      const next = await step(undefined, eventElement(1, KEY, '12', { eventTimeMs: T0 + 5 }), payments);
      const deadline = T0 + 5 + HOUR;
      expect(next.seq).toBe(1);
      expect(next.continuation).toEqual({
        seq: 0,
        stepIndex: 1,
        pendingIntentIds: [id(0)],
        snapshot: utf8Bytes(JSON.stringify({ charge: id(0) })),
        suspendedAtMs: T0 + 5,
        deadlineMs: deadline,
        escalations: 0,
        traceId: traceId(AGENT, KEY_BYTES, 0),
      });
      expect(next.pending).toMatchObject([{ intentId: id(0), toolName: 'charge', argsJson: '{"amount":12}', kind: IntentKind.Tool, stepIndex: 0, seq: 0, expiresAtMs: deadline, signature: new Uint8Array(0) }]);
      expect(next.timers).toEqual([{ timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: deadline }]);
    });

    it('addresses an approval request to the approval-requests subject of the key', async () => {
      const agent = agentOf((ctx) => (ctx.requestApproval({ amount: 900 }), suspend()));
      const next = await step(undefined, eventElement(1, KEY, 'e'), agent);
      expect(next.outbox.map((e) => [e.subject, e.msgId])).toEqual([[`agents.approval-requests.${AGENT}.${KEY_HEX}`, id(0)]]);
      expect(outboxIntents(next)).toMatchObject([{ kind: IntentKind.Approval, toolName: 'approval', argsJson: '{"amount":900}' }]);
    });

    it('publishes emitted outputs first, then intents in step order', async () => {
      const agent = agentOf((ctx) => {
        ctx.emit('working');
        ctx.act('charge', { amount: 1 });
        ctx.requestApproval({});
        ctx.act('notify', {});
        return suspend();
      });
      const next = await step(undefined, eventElement(1, KEY, 'e'), agent);
      expect(next.outbox.map((e) => e.subject)).toEqual([
        `agents.output.${AGENT}.${KEY_HEX}`,
        `agents.intents.${AGENT}.charge`,
        `agents.approval-requests.${AGENT}.${KEY_HEX}`,
        `agents.intents.${AGENT}.notify`,
      ]);
      expect(next.outbox.slice(1).map((e) => e.msgId)).toEqual([id(0), id(1), id(2)]);
      expect(next.continuation?.pendingIntentIds).toEqual([id(0), id(1), id(2)]);
    });

    it.each<[string, AgentHandler, Partial<AgentDefinition>, number]>([
      ['the earliest staged expiry, below the default timeout', (ctx) => (ctx.act('charge', {}, { ttlMs: 9_000 }), ctx.act('charge', {}, { ttlMs: 4_000 }), suspend()), {}, 4_000],
      ['an explicit suspend timeout shorter than every expiry', (ctx) => (ctx.act('charge', {}), suspend({ timeoutMs: 1_000 })), {}, 1_000],
      ['the policy timeout when it is shorter than the intent TTL', (ctx) => (ctx.act('charge', {}), suspend()), { suspension: { timeoutMs: 2_000 } }, 2_000],
      ['the 24 h default when nothing was staged', () => suspend(), {}, DAY],
      ['the policy timeout when nothing was staged', () => suspend(), { suspension: { timeoutMs: 7_000 } }, 7_000],
      ['an explicit timeout when nothing was staged', () => suspend({ timeoutMs: 3_000 }), {}, 3_000],
      ['the expiry even under a longer explicit timeout', (ctx) => (ctx.requestApproval({}, { ttlMs: 500 }), suspend({ timeoutMs: 60_000 })), {}, 500],
    ])('puts the deadline at %s (B10)', async (_case, handler, extra, offset) => {
      const next = await step(undefined, eventElement(1, KEY, 'e', { eventTimeMs: T0 }), agentOf(handler, extra));
      expect(next.continuation?.deadlineMs).toBe(T0 + offset);
      expect(deadlineTimer(next).dueAtMs).toBe(T0 + offset);
    });

    it('re-stages a byte-identical document when the same element is applied to the same state again', async () => {
      const element = eventElement(1, KEY, '12');
      const first = await step(undefined, element, payments, { timers: new ManualTimers(0) });
      const second = await step(undefined, element, payments, { timers: new ManualTimers(123_456) });
      expect(hex(encodeActorDocument(second))).toBe(hex(encodeActorDocument(first)));
    });
  });

  describe('a resume (B01–B03, B11, B12)', () => {
    it('resumes on the tool result with the payload, clears the continuation, pending intents and deadline timer, and advances seq', async () => {
      const idle: TimerDoc = { timerId: 'flush', kind: TimerKind.Flush, dueAtMs: T0 + DAY };
      const suspended = await step(undefined, eventElement(1, KEY, '12'), payments);
      const withIdle = { ...suspended, timers: [...suspended.timers, idle] };
      const result = await applyElement(withIdle, resultElement(2, KEY, id(0), { eventTimeMs: T0 + 10, payload: '"pong"' }), applyDeps(payments));
      const next = committedDoc(result);
      expect(outboxOutputs(next)).toEqual(['resumed:ok:"pong"']);
      expect(next).toMatchObject({ seq: 2, lastAppliedSeq: 2, continuation: undefined, pending: [], timers: [idle] });
      expect(commitReport(result)).toMatchObject({ status: 'completed', seq: 0, outputs: 1, intents: 0, resumed: true });
    });

    it('runs in the scope of the suspended activation: its seq, snapshot, step cursor and trace (B03)', async () => {
      const seen: unknown[] = [];
      const agent = agentOf((ctx) => {
        if (!ctx.isResume) {
          ctx.act('charge', {});
          return suspend({ snapshot: 'opaque-state' });
        }
        seen.push({ seq: ctx.seq, snapshot: new TextDecoder().decode(ctx.snapshot), event: ctx.event, time: ctx.eventTimeMs });
        return suspend({ snapshot: 'next' });
      });
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const resumed = await step(suspended, resultElement(2, KEY, id(0), { eventTimeMs: T0 + 10 }), agent);
      expect(seen).toEqual([{ seq: 0, snapshot: 'opaque-state', event: undefined, time: T0 + 10 }]);
      expect(resumed.continuation).toMatchObject({ seq: 0, stepIndex: 1, traceId: traceId(AGENT, KEY_BYTES, 0), snapshot: utf8Bytes('next') });
    });

    it('gives a fresh event after one suspend and resume seq s+2', async () => {
      const probe = agentOf((ctx) => (ctx.event !== undefined && ctx.eventText() === 'probe' ? complete(`seq=${ctx.seq}`) : payments.handler(ctx)));
      const suspended = await step(undefined, eventElement(1, KEY, '12'), probe);
      const resumed = await step(suspended, resultElement(2, KEY, id(0)), probe);
      const fresh = await step(resumed, eventElement(3, KEY, 'probe'), probe);
      expect(outboxOutputs(fresh)).toEqual(['seq=2']);
    });

    it('stages the next intent of a resume at the saved cursor, never colliding with the first (B02)', async () => {
      const agent = agentOf((ctx) => (ctx.act(ctx.isResume ? 'refund' : 'charge', {}), suspend()));
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const resumed = await step(suspended, resultElement(2, KEY, id(0)), agent);
      expect(outboxIntents(resumed)).toMatchObject([{ intentId: id(1), stepIndex: 1, seq: 0, toolName: 'refund', traceId: traceId(AGENT, KEY_BYTES, 0) }]);
      expect(resumed.continuation).toMatchObject({ stepIndex: 2, pendingIntentIds: [id(1)] });
    });

    it('exposes an approval and no result on an approval resume, and a denial completes with nothing on errors (B11)', async () => {
      const views: unknown[] = [];
      const agent = agentOf((ctx) => {
        if (!ctx.isResume) return (ctx.requestApproval({ amount: 900 }), suspend());
        views.push({ result: ctx.resumeResult, approval: ctx.resumeApproval, timedOut: ctx.resumeTimedOut });
        return complete(ctx.resumeApproval?.approved ? 'approved' : `rejected:${ctx.resumeApproval?.reason}`);
      });
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const denied = await step(suspended, approvalElement(2, KEY, id(0), { approved: false, approver: 'bob', reason: 'too much', decidedAtMs: T0 + 3 }), agent);
      expect(views).toEqual([{ result: undefined, approval: { intentId: id(0), approved: false, approver: 'bob', reason: 'too much', decidedAtMs: T0 + 3 }, timedOut: false }]);
      expect(outboxOutputs(denied)).toEqual(['rejected:too much']);
      expect(outboxErrors(denied)).toEqual([]);
      expect(denied.continuation).toBeUndefined();
    });

    it('exposes the result and no approval on a result resume (B11)', async () => {
      let approval: unknown = 'unset';
      const agent = agentOf((ctx) => (ctx.isResume ? ((approval = ctx.resumeApproval), complete(ctx.resumeResult?.errorMessage)) : payments.handler(ctx)));
      const suspended = await step(undefined, eventElement(1, KEY, '1'), agent);
      const resumed = await step(suspended, resultElement(2, KEY, id(0), { status: ToolResultStatus.Error, payload: '', errorMessage: 'card declined' }), agent);
      expect(approval).toBeUndefined();
      expect(outboxOutputs(resumed)).toEqual(['card declined']);
    });

    it('resumes on an EXPIRED result before the deadline and shows the status, so the agent can degrade (B09)', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, '12'), payments);
      const resumed = await step(suspended, resultElement(2, KEY, id(0), { status: ToolResultStatus.Expired, payload: '', eventTimeMs: T0 + 10 }), payments);
      expect(outboxOutputs(resumed)).toEqual(['resumed:expired:']);
      expect(outboxErrors(resumed)).toEqual([]);
    });

    it('publishes resume outputs under ids of the resume commit, distinct from the start commit', async () => {
      const agent = agentOf((ctx) => (ctx.isResume ? complete('after') : (ctx.emit('before'), ctx.act('charge', {}), suspend())));
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const resumed = await step(suspended, resultElement(2, KEY, id(0)), agent);
      expect(suspended.outbox[0]?.msgId).toBe(outputMessageId(AGENT, KEY_BYTES, 0, 0));
      expect(resumed.outbox[0]?.msgId).toBe(outputMessageId(AGENT, KEY_BYTES, 1, 0));
      expect(resumed.outbox[0]?.headers).toContainEqual({ name: 'Agents-Seq', value: '0' });
    });

    it('replays the same resume into a byte-identical document', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, '12'), payments);
      const element = resultElement(2, KEY, id(0));
      const a = await step(suspended, element, payments, { timers: new ManualTimers(0) });
      const b = await step(suspended, element, payments, { timers: new ManualTimers(99_999) });
      expect(hex(encodeActorDocument(b))).toBe(hex(encodeActorDocument(a)));
    });
  });

  describe('a re-suspending resume', () => {
    /** Stages two legs; each resume records the answered leg and completes once both are in. */
    const twoLegs = agentOf((ctx) => {
      if (!ctx.isResume) {
        ctx.act('charge', { leg: 'a' });
        ctx.act('charge', { leg: 'b' });
        return suspend({ snapshot: '[]' });
      }
      const answered = [...(ctx.snapshotJson<string[]>() ?? []), ctx.resumeResult?.intentId ?? '?'];
      if (ctx.eventTimeMs === T0 + 20) ctx.act('notify', {}, { ttlMs: 100 });
      return answered.length < 2 ? suspend({ snapshot: JSON.stringify(answered) }) : complete(`both#${ctx.seq}`);
    });

    it('carries the unanswered intent and the original deadline forward, and keeps the deadline timer as it was', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, 'e', { eventTimeMs: T0 }), twoLegs);
      const resumed = await step(suspended, resultElement(2, KEY, id(1), { eventTimeMs: T0 + 10 }), twoLegs);
      expect(resumed.continuation).toEqual({ ...suspended.continuation, pendingIntentIds: [id(0)], snapshot: utf8Bytes(JSON.stringify([id(1)])), suspendedAtMs: T0 + 10 });
      expect(resumed.continuation?.deadlineMs).toBe(T0 + HOUR);
      expect(resumed.pending).toEqual([suspended.pending[0]]);
      expect(resumed.timers).toEqual(suspended.timers);
      expect(resumed.seq).toBe(2);
      expect(outboxIntents(resumed)).toEqual([]);
    });

    it('refuses a second answer to the intent that already resumed the key (it left pending)', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), twoLegs);
      const resumed = await step(suspended, resultElement(2, KEY, id(1)), twoLegs);
      const again = await step(resumed, resultElement(3, KEY, id(1)), twoLegs);
      expect(outboxErrors(again)).toMatchObject([{ reason: 'orphaned_result', detail: `unknown_intent:${id(1)}` }]);
    });

    it('completes when the carried intent is answered too', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), twoLegs);
      const once = await step(suspended, resultElement(2, KEY, id(1)), twoLegs);
      const twice = await step(once, resultElement(3, KEY, id(0)), twoLegs);
      expect(outboxOutputs(twice)).toEqual(['both#0']);
      expect(twice).toMatchObject({ continuation: undefined, pending: [], timers: [], seq: 3 });
    });

    it('adds newly staged intents after the carried ones and lets an earlier new expiry shorten the deadline', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, 'e', { eventTimeMs: T0 }), twoLegs);
      const resumed = await step(suspended, resultElement(2, KEY, id(1), { eventTimeMs: T0 + 20 }), twoLegs);
      expect(resumed.continuation).toMatchObject({ pendingIntentIds: [id(0), id(2)], stepIndex: 3, deadlineMs: T0 + 120 });
      expect(resumed.pending.map((i) => i.intentId)).toEqual([id(0), id(2)]);
      expect(resumed.timers).toEqual([{ timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: T0 + 120 }]);
    });

    it('never extends the deadline: a longer explicit timeout on the resume keeps the original', async () => {
      const agent = agentOf((ctx) => (ctx.isResume ? suspend({ timeoutMs: 10 * DAY }) : (ctx.act('charge', {}), ctx.act('charge', {}), suspend())));
      const suspended = await step(undefined, eventElement(1, KEY, 'e', { eventTimeMs: T0 }), agent);
      const resumed = await step(suspended, resultElement(2, KEY, id(0), { eventTimeMs: T0 + 50 }), agent);
      expect(resumed.continuation?.deadlineMs).toBe(T0 + HOUR);
      const shorter = agentOf((ctx) => (ctx.isResume ? suspend({ timeoutMs: 100 }) : agent.handler(ctx)));
      expect((await step(suspended, resultElement(2, KEY, id(0), { eventTimeMs: T0 + 50 }), shorter)).continuation?.deadlineMs).toBe(T0 + 150);
    });
  });

  describe('a failing resume (B04)', () => {
    it('records activation_error at the resume cursor and keeps continuation, pending intents, timers, memory and seq', async () => {
      const agent = agentOf((ctx) => {
        if (!ctx.isResume) return (ctx.memory.set('stage', 'charged'), ctx.act('charge', {}), suspend());
        ctx.memory.set('stage', 'resumed');
        ctx.emit('partial');
        throw new Error('resume broke');
      });
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const result = await applyElement(suspended, resultElement(2, KEY, id(0), { eventTimeMs: T0 + 9 }), applyDeps(agent));
      const next = committedDoc(result);
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(suspended, 2, next));
      expect(outboxErrors(next)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'activation_error', detail: 'Error: resume broke failed_at_step=1 after=activation_start', eventTimeMs: T0 + 9 }]);
      expect(commitReport(result)).toMatchObject({ status: 'failed', reason: 'activation_error', outputs: 0 });
    });

    it('stays answerable: a later answer for the same intent resumes the key', async () => {
      let attempts = 0;
      const agent = agentOf((ctx) => {
        if (!ctx.isResume) return (ctx.act('charge', {}), suspend());
        attempts += 1;
        if (attempts === 1) throw new Error('flaky');
        return complete('recovered');
      });
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const failed = await step(suspended, resultElement(2, KEY, id(0)), agent);
      const recovered = await step(failed, resultElement(3, KEY, id(0)), agent);
      expect(outboxOutputs(recovered)).toEqual(['recovered']);
    });

    it('records activation_timeout for a resume that outruns its timeout and mutates nothing else', async () => {
      const timers = new ManualTimers();
      const agent = agentOf((ctx) => (ctx.isResume ? new Promise<Outcome>(() => undefined) : (ctx.act('charge', {}), suspend())), { timeoutMs: 500 });
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      const next = committedDoc(await timers.settle(applyElement(suspended, resultElement(2, KEY, id(0)), applyDeps(agent, { timers }))));
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(suspended, 2, next));
      expect(outboxErrors(next)).toMatchObject([{ reason: 'activation_timeout', detail: '' }]);
    });
  });

  describe('refused answers (B05–B08)', () => {
    it.each<[string, (s: ActorDocument) => Parameters<typeof applyElement>[1], string]>([
      ['an unknown intent id', () => resultElement(2, KEY, id(5)), `unknown_intent:${id(5)}`],
      ['an approval for a tool intent', () => approvalElement(2, KEY, id(0)), `unknown_intent:${id(0)}`],
      ['a result at the deadline', (s) => resultElement(2, KEY, id(0), { eventTimeMs: s.continuation?.deadlineMs ?? 0 }), `deadline_passed:${id(0)}`],
      ['an approval after the deadline', (s) => approvalElement(2, KEY, id(1), { eventTimeMs: (s.continuation?.deadlineMs ?? 0) + 1 }), `deadline_passed:${id(1)}`],
    ])('refuses %s as orphaned_result, running nothing and mutating nothing else', async (_case, answer, detail) => {
      const handler = vi.fn((ctx: ActivationContext) => (ctx.isResume ? complete('ran') : (ctx.act('charge', {}), ctx.requestApproval({}), suspend())));
      const agent = agentOf(handler);
      const suspended = await step(undefined, eventElement(1, KEY, 'e'), agent);
      handler.mockClear();
      const element = answer(suspended);
      const result = await applyElement(suspended, element, applyDeps(agent));
      const next = committedDoc(result);
      expect(handler).not.toHaveBeenCalled();
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(suspended, 2, next));
      expect(next.outbox[0]?.subject).toBe(`agents.errors.${AGENT}.orphaned_result`);
      expect(outboxErrors(next)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'orphaned_result', detail, eventTimeMs: element.eventTimeMs }]);
      expect(commitReport(result)).toMatchObject({ status: 'orphaned', reason: 'orphaned_result' });
    });
  });

  describe('signing', () => {
    const key = { keyId: 'k1', secret: utf8Bytes('0123456789abcdef') };

    it('signs the published copy of each intent only; the pending copy and the continuation stay unsigned, and the message id is keyed by the signature', async () => {
      const agent = agentOf((ctx) => (ctx.act('charge', { amount: 1 }), ctx.requestApproval({}), suspend()));
      const element = eventElement(1, KEY, 'e');
      const unsigned = await step(undefined, element, agent);
      const signed = await step(undefined, element, agent, { signer: (intent) => signIntent(intent, key) });
      expect(hex(encodeActorDocument({ ...signed, outbox: [] }))).toBe(hex(encodeActorDocument({ ...unsigned, outbox: [] })));
      const published = outboxIntents(signed);
      expect(published.map((i) => [i.intentId, i.signingKeyId])).toEqual([[id(0), 'k1'], [id(1), 'k1']]);
      for (const intent of published) expect(verifyIntent(intent, new Map([['k1', key.secret]]))).toEqual({ kind: 'ok' });
      expect(signed.pending.every((i) => i.signature.length === 0 && i.signingKeyId === '')).toBe(true);
      expect(signed.outbox.map((e) => e.subject)).toEqual(unsigned.outbox.map((e) => e.subject));
      // Unsigned, the message id is the (predictable) intent id; signed, it derives from the MAC, so
      // a forger who predicts the intent id cannot occupy the genuine message's id (decision 0058).
      expect(unsigned.outbox.map((e) => e.msgId)).toEqual([id(0), id(1)]);
      expect(signed.outbox.map((e) => e.msgId)).toEqual(published.map((i) => signedIntentMessageId(i.signature)));
    });
  });
});
