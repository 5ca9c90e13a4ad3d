// The deadline routes (deny, drop, escalate; E01–E11) are a pure function of the committed document and the timer element, so each route, its bound and its retry determinism are checked here on documents, with the firing built exactly as the scheduler publishes it (event time = due time).
import { describe, expect, it, vi } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome } from '../agent/outcome.js';
import type { SuspensionPolicy } from '../agent/suspension-policy.js';
import { errorMessageId } from '../ids/message-id.js';
import { intentId } from '../ids/intent-id.js';
import { traceId } from '../ids/trace-id.js';
import { applyDeps, commitReport, committedDoc, deadlineTimer, outboxErrors, outboxIntents, outboxOutputs } from '../testing/apply-element-fixtures.js';
import { approvalElement, eventElement, resultElement, T0, timerElement, timerFiring, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { IntentKind, TimerKind, type ActorDocument } from './actor-document.js';
import { applyElement } from './apply-element.js';
import type { ApplyDeps } from './apply-result.js';
import { needsDrain } from './deferral.js';
import type { InboxElement } from './inbox-element.js';
import { encodeActorDocument } from './state-codec.js';

const AGENT = 'triage';
const KEY = 'order-42';
const KEY_BYTES = utf8Bytes(KEY);
const KEY_HEX = Buffer.from(KEY_BYTES).toString('hex');
const TIMEOUT = 1_000;
const DEADLINE = T0 + TIMEOUT;
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const id = (step: number, seq = 0): string => intentId(AGENT, KEY_BYTES, seq, step);
const ESCALATE: SuspensionPolicy = { onTimeout: 'escalate', maxEscalations: 1, escalationChannel: 'pager', escalationTimeoutMs: 5_000 };

/** What each resume saw. */
interface Seen {
  readonly timedOut: boolean;
  readonly result?: { readonly intentId: string; readonly status: string; readonly errorMessage: string; readonly completedAtMs: number; readonly json: unknown };
  readonly approval?: { readonly intentId: string; readonly approved: boolean; readonly approver: string; readonly reason: string; readonly decidedAtMs: number };
  readonly stepAct?: string;
}

/**
 * Starts (suspend timeout 1 s): `ask` requests approval (1 h TTL), `ask-short` with a TTL equal to
 * the timeout, `charge` stages a tool intent, `park` stages nothing. A resume records what it saw
 * and completes: `approved`, `rejected`, `resumed:<status>` or `timeout`; on `act` in the snapshot
 * it stages one more intent and suspends again; on `throw` it throws.
 */
function agentWith(suspension?: SuspensionPolicy): { agent: AgentDefinition; seen: Seen[] } {
  const seen: Seen[] = [];
  const handler = (ctx: ActivationContext): Outcome => {
    if (!ctx.isResume) {
      const event = ctx.eventText();
      const [script, mode = ''] = event.split(':');
      if (script === 'ask') ctx.requestApproval({ amount: 900 });
      if (script === 'ask-short') ctx.requestApproval({ amount: 900 }, { ttlMs: TIMEOUT });
      if (script === 'charge') ctx.act('charge', { amount: 5 });
      return { kind: 'suspend', snapshot: mode, timeoutMs: TIMEOUT };
    }
    const r = ctx.resumeResult;
    const a = ctx.resumeApproval;
    const mode = new TextDecoder().decode(ctx.snapshot);
    if (mode === 'throw') throw new Error('denial handler broke');
    const stepAct = mode === 'act' ? ctx.act('refund', {}) : undefined;
    seen.push({
      timedOut: ctx.resumeTimedOut,
      ...(r ? { result: { intentId: r.intentId, status: r.status, errorMessage: r.errorMessage, completedAtMs: r.completedAtMs, json: r.json() } } : {}),
      ...(a ? { approval: { intentId: a.intentId, approved: a.approved, approver: a.approver, reason: a.reason, decidedAtMs: a.decidedAtMs } } : {}),
      ...(stepAct ? { stepAct } : {}),
    });
    if (stepAct) return { kind: 'suspend', snapshot: '' };
    if (ctx.resumeTimedOut) return { kind: 'complete', output: 'timeout' };
    if (a) return { kind: 'complete', output: a.approved ? 'approved' : 'rejected' };
    return { kind: 'complete', output: `resumed:${r?.status}` };
  };
  return { agent: { name: AGENT, handler, ...(suspension ? { suspension } : {}) }, seen };
}

async function step(state: ActorDocument | undefined, element: InboxElement, agent: AgentDefinition, overrides: Partial<ApplyDeps> = {}): Promise<ActorDocument> {
  return committedDoc(await applyElement(state, element, applyDeps(agent, overrides)));
}

/** The firing of the document's live deadline timer as inbox element `inboxSeq`. */
const fire = (state: ActorDocument, inboxSeq: number): InboxElement => timerFiring(inboxSeq, KEY, deadlineTimer(state));

describe('applyElement: the suspension deadline', () => {
  describe('stale and boundary firings (E10)', () => {
    it('arms the deadline timer at the deadline under its derived id', async () => {
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agentWith().agent);
      expect(suspended.timers).toEqual([{ timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: DEADLINE }]);
    });

    it.each<[string, (s: ActorDocument) => InboxElement]>([
      ['a firing of an earlier, superseded due time', () => timerElement(2, KEY, { timer: { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: DEADLINE - 500 }, eventTimeMs: DEADLINE - 500 })],
      ['a firing of a timer id the key does not hold', () => timerElement(2, KEY, { timer: { timerId: 'deadline-9-0', kind: TimerKind.Deadline, dueAtMs: DEADLINE }, eventTimeMs: DEADLINE })],
      ['a deadline timer the continuation no longer matches', (s) => timerFiring(2, KEY, { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: (s.continuation?.deadlineMs ?? 0) + 1 })],
    ])('does nothing for %s', async (_case, firing) => {
      const { agent } = agentWith();
      const handler = vi.spyOn(agent, 'handler');
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      handler.mockClear();
      expect(await applyElement(suspended, firing(suspended), applyDeps(agent))).toEqual({ kind: 'noop' });
      expect(handler).not.toHaveBeenCalled();
    });

    it('does nothing for a stored timer that is not the deadline, even while suspended', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const idle = { timerId: 'idle', kind: TimerKind.IdleTtl, dueAtMs: DEADLINE } as const;
      expect(await applyElement({ ...suspended, timers: [...suspended.timers, idle] }, timerFiring(2, KEY, idle), applyDeps(agent))).toEqual({ kind: 'noop' });
    });

    it('does nothing for a deadline timer left behind without a continuation', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      expect(await applyElement({ ...suspended, continuation: undefined }, fire(suspended, 2), applyDeps(agent))).toEqual({ kind: 'noop' });
      expect(await applyElement(undefined, fire(suspended, 2), applyDeps(agent))).toEqual({ kind: 'noop' });
    });

    it('runs the fallback for a firing exactly at the deadline', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const firing = fire(suspended, 2);
      expect(firing.eventTimeMs).toBe(DEADLINE);
      expect(commitReport(await applyElement(suspended, firing, applyDeps(agent))).status).toBe('completed');
    });
  });

  describe('deny (the default)', () => {
    it('resumes the agent with a denied approval of the first pending intent, signed by the deadline (E03)', async () => {
      const { agent, seen } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const result = await applyElement(suspended, fire(suspended, 2), applyDeps(agent));
      const next = committedDoc(result);
      expect(seen).toEqual([{ timedOut: true, approval: { intentId: id(0), approved: false, approver: 'nats-agents:deadline', reason: 'hitl_timeout', decidedAtMs: DEADLINE } }]);
      expect(outboxOutputs(next)).toEqual(['timeout']);
      expect(outboxErrors(next)).toEqual([]);
      expect(next).toMatchObject({ continuation: undefined, pending: [], timers: [], seq: 2, lastAppliedSeq: 2 });
      expect(commitReport(result)).toMatchObject({ status: 'completed', seq: 0, resumed: true });
    });

    it('resumes with an expired tool result when the first pending intent is a tool intent', async () => {
      const { agent, seen } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'charge'), agent);
      await step(suspended, fire(suspended, 2), agent);
      expect(seen).toEqual([{ timedOut: true, result: { intentId: id(0), status: 'expired', errorMessage: 'the suspension deadline passed before a result arrived', completedAtMs: DEADLINE, json: undefined } }]);
    });

    it('resumes with only the timed-out flag when nothing was pending', async () => {
      const { agent, seen } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'park'), agent);
      await step(suspended, fire(suspended, 2), agent);
      expect(seen).toEqual([{ timedOut: true }]);
    });

    it('ends the suspension even when the agent fails on the denial, committing nothing else', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask:throw'), agent);
      const result = await applyElement(suspended, fire(suspended, 2), applyDeps(agent));
      const next = committedDoc(result);
      expect(outboxErrors(next)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'activation_error', detail: 'Error: denial handler broke failed_at_step=1 after=activation_start', eventTimeMs: DEADLINE }]);
      expect(hex(encodeActorDocument(next))).toBe(hex(encodeActorDocument({ ...suspended, continuation: undefined, pending: [], timers: [], lastAppliedSeq: 2, outbox: next.outbox })));
      expect(commitReport(result)).toMatchObject({ status: 'failed', seq: 1 });
    });

    it('lets the denied agent suspend afresh at its next step, carrying nothing from the expired suspension', async () => {
      const { agent, seen } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask:act'), agent);
      const next = await step(suspended, fire(suspended, 2), agent);
      expect(seen[0]?.stepAct).toBe(id(1));
      // The new deadline starts from the firing: the 24 h default capped by the new intent's 1 h TTL.
      expect(next.continuation).toMatchObject({ seq: 0, stepIndex: 2, pendingIntentIds: [id(1)], escalations: 0, suspendedAtMs: DEADLINE, deadlineMs: DEADLINE + 3_600_000 });
      expect(next.pending.map((i) => i.intentId)).toEqual([id(1)]);
      expect(next.timers).toEqual([{ timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: DEADLINE + 3_600_000 }]);
    });

    it('refuses the late answer after the fallback ran, and runs the fallback only once (E02–E04)', async () => {
      const { agent, seen } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const denied = await step(suspended, fire(suspended, 2), agent);
      const late = await step(denied, approvalElement(3, KEY, id(0), { eventTimeMs: DEADLINE + 5 }), agent);
      expect(outboxErrors(late)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'orphaned_result', detail: `no_continuation:${id(0)}`, eventTimeMs: DEADLINE + 5 }]);
      expect(await applyElement(late, fire(suspended, 4), applyDeps(agent))).toEqual({ kind: 'noop' });
      expect(seen).toHaveLength(1);
    });

    it('is disarmed by an answer in time: the old firing later does nothing (E05)', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const approved = await step(suspended, approvalElement(2, KEY, id(0), { eventTimeMs: DEADLINE - 1 }), agent);
      expect(outboxOutputs(approved)).toEqual(['approved']);
      expect(approved.timers).toEqual([]);
      expect(await applyElement(approved, fire(suspended, 3), applyDeps(agent))).toEqual({ kind: 'noop' });
    });

    it('owes a drain of the events that waited behind the suspension', async () => {
      const { agent } = agentWith();
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const waiting = await step(suspended, eventElement(2, KEY, 'park'), agent);
      expect(needsDrain(await step(waiting, fire(suspended, 3), agent))).toBe(true);
    });
  });

  describe('drop (E08, E11)', () => {
    it('ends the suspension with one hitl_timeout record seq=<n>, no output, without running the agent or touching seq', async () => {
      const { agent } = agentWith({ onTimeout: 'drop' });
      const handler = vi.spyOn(agent, 'handler');
      const before = await step(undefined, eventElement(1, KEY, 'note'), { ...agent, handler: () => ({ kind: 'complete' }) });
      const suspended = await step(before, eventElement(2, KEY, 'ask'), agent);
      handler.mockClear();
      const result = await applyElement(suspended, fire(suspended, 3), applyDeps(agent));
      const next = committedDoc(result);
      expect(handler).not.toHaveBeenCalled();
      expect(next.outbox.map((e) => [e.subject, e.msgId])).toEqual([[`agents.errors.${AGENT}.hitl_timeout`, errorMessageId(AGENT, KEY_BYTES, 3)]]);
      expect(outboxErrors(next)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'hitl_timeout', detail: 'seq=1', eventTimeMs: DEADLINE }]);
      expect(hex(encodeActorDocument(next))).toBe(hex(encodeActorDocument({ ...suspended, continuation: undefined, pending: [], timers: [], lastAppliedSeq: 3, outbox: next.outbox })));
      expect(next.seq).toBe(suspended.seq);
      expect(commitReport(result)).toEqual({ status: 'hitl_timeout', seq: 2, reason: 'hitl_timeout', outputs: 0 });
    });

    it('orphans an answer that arrives after the drop', async () => {
      const { agent } = agentWith({ onTimeout: 'drop' });
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const dropped = await step(suspended, fire(suspended, 2), agent);
      expect(outboxErrors(await step(dropped, approvalElement(3, KEY, id(0)), agent))).toMatchObject([{ detail: `no_continuation:${id(0)}` }]);
    });
  });

  describe('escalate (E01, E06, E07)', () => {
    it('mints an approval request at the continuation step on the escalation channel, extends the deadline and re-arms, without running the agent or touching seq', async () => {
      const { agent } = agentWith(ESCALATE);
      const handler = vi.spyOn(agent, 'handler');
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      handler.mockClear();
      const result = await applyElement(suspended, fire(suspended, 2), applyDeps(agent));
      const next = committedDoc(result);
      expect(handler).not.toHaveBeenCalled();
      const escalation = {
        intentId: id(1),
        agent: AGENT,
        seq: 0,
        stepIndex: 1,
        toolName: 'pager',
        argsJson: JSON.stringify({ escalation: 1, pending: [id(0)] }),
        createdAtMs: DEADLINE,
        expiresAtMs: DEADLINE + 5_000,
        attempt: 0,
        kind: IntentKind.Approval,
        traceId: traceId(AGENT, KEY_BYTES, 0),
      };
      expect(next.outbox.map((e) => [e.subject, e.msgId])).toEqual([[`agents.approval-requests.${AGENT}.${KEY_HEX}`, id(1)]]);
      expect(outboxIntents(next)).toMatchObject([escalation]);
      expect(next.pending).toMatchObject([{ intentId: id(0) }, escalation]);
      expect(next.continuation).toEqual({ ...suspended.continuation, stepIndex: 2, pendingIntentIds: [id(0), id(1)], deadlineMs: DEADLINE + 5_000, escalations: 1 });
      expect(next.timers).toEqual([{ timerId: 'deadline-0-1', kind: TimerKind.Deadline, dueAtMs: DEADLINE + 5_000 }]);
      expect(next).toMatchObject({ seq: suspended.seq, lastAppliedSeq: 2 });
      expect(commitReport(result)).toEqual({ status: 'escalated', seq: 0, outputs: 0, intents: 1 });
    });

    it('re-mints a byte-identical escalation when the timer element is retried, whatever the processing clock (E01)', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const first = await step(suspended, fire(suspended, 2), agent, { timers: new ManualTimers(0) });
      const retried = await step(suspended, fire(suspended, 2), agent, { timers: new ManualTimers(777_777) });
      expect(hex(encodeActorDocument(retried))).toBe(hex(encodeActorDocument(first)));
    });

    it('issues exactly [request on approval at step 0, escalation on pager at step 1], and the escalation answer resumes (E01)', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      const intents = [...outboxIntents(suspended), ...outboxIntents(escalated)];
      expect(intents.map((i) => [i.stepIndex, i.kind, i.toolName])).toEqual([[0, IntentKind.Approval, 'approval'], [1, IntentKind.Approval, 'pager']]);
      const resumed = await step(escalated, approvalElement(3, KEY, id(1), { eventTimeMs: DEADLINE + 100 }), agent);
      expect(outboxOutputs(resumed)).toEqual(['approved']);
      expect(outboxErrors(resumed)).toEqual([]);
      expect(resumed).toMatchObject({ continuation: undefined, pending: [], timers: [] });
    });

    it('resumes with a denial on the escalation channel (E06)', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      expect(outboxOutputs(await step(escalated, approvalElement(3, KEY, id(1), { approved: false, eventTimeMs: DEADLINE + 100 }), agent))).toEqual(['rejected']);
    });

    it('keeps the original request answerable while it has not expired itself (E06)', async () => {
      const { agent, seen } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      const resumed = await step(escalated, approvalElement(3, KEY, id(0), { eventTimeMs: DEADLINE + 100 }), agent);
      expect(outboxOutputs(resumed)).toEqual(['approved']);
      expect(seen.at(-1)?.approval?.intentId).toBe(id(0));
    });

    it('refuses the original request as intent_expired once its own TTL passed, though the escalation is live (B08)', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask-short'), agent);
      expect(suspended.pending[0]?.expiresAtMs).toBe(DEADLINE);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      expect(outboxErrors(await step(escalated, approvalElement(3, KEY, id(0), { eventTimeMs: DEADLINE + 100 }), agent))).toMatchObject([{ detail: `intent_expired:${id(0)}` }]);
      expect(outboxOutputs(await step(escalated, approvalElement(3, KEY, id(1), { eventTimeMs: DEADLINE + 100 }), agent))).toEqual(['approved']);
    });

    it('resumes the agent after an escalation at the step after it, so its next intent never collides', async () => {
      const { agent, seen } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask:act'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      const resumed = await step(escalated, approvalElement(3, KEY, id(1), { eventTimeMs: DEADLINE + 100 }), agent);
      expect(seen.at(-1)?.stepAct).toBe(id(2));
      expect(resumed.continuation).toMatchObject({ stepIndex: 3, pendingIntentIds: [id(0), id(2)], escalations: 1, deadlineMs: DEADLINE + 5_000 });
      expect(resumed.timers).toEqual(escalated.timers);
    });

    it('escalates up to maxEscalations with distinct ids, then denies and clears everything (E06, E07)', async () => {
      const { agent, seen } = agentWith({ ...ESCALATE, maxEscalations: 2 });
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const once = await step(suspended, fire(suspended, 2), agent);
      const twice = await step(once, fire(once, 3), agent);
      expect([...outboxIntents(once), ...outboxIntents(twice)].map((i) => [i.intentId, i.stepIndex, i.argsJson])).toEqual([
        [id(1), 1, JSON.stringify({ escalation: 1, pending: [id(0)] })],
        [id(2), 2, JSON.stringify({ escalation: 2, pending: [id(0), id(1)] })],
      ]);
      expect(twice.continuation).toMatchObject({ escalations: 2, deadlineMs: DEADLINE + 10_000, pendingIntentIds: [id(0), id(1), id(2)] });
      expect(twice.timers).toEqual([{ timerId: 'deadline-0-2', kind: TimerKind.Deadline, dueAtMs: DEADLINE + 10_000 }]);

      const denied = await step(twice, fire(twice, 4), agent);
      expect(seen).toEqual([{ timedOut: true, approval: { intentId: id(0), approved: false, approver: 'nats-agents:deadline', reason: 'hitl_timeout', decidedAtMs: DEADLINE + 10_000 } }]);
      expect(outboxOutputs(denied)).toEqual(['timeout']);
      expect(denied).toMatchObject({ continuation: undefined, pending: [], timers: [] });
    });

    it('denies at once when maxEscalations is 0, and orphans the late answer (E02)', async () => {
      const { agent } = agentWith({ ...ESCALATE, maxEscalations: 0 });
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const denied = await step(suspended, fire(suspended, 2), agent);
      expect(outboxOutputs(denied)).toEqual(['timeout']);
      expect(outboxErrors(await step(denied, approvalElement(3, KEY, id(0), { eventTimeMs: DEADLINE + 1 }), agent))).toMatchObject([{ detail: `no_continuation:${id(0)}` }]);
    });

    it('ignores the superseded deadline once escalated: the old firing is stale', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      expect(await applyElement(escalated, fire(suspended, 3), applyDeps(agent))).toEqual({ kind: 'noop' });
    });

    it('keeps events deferred while escalated: the suspension is still live', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'ask'), agent);
      const waiting = await step(suspended, eventElement(2, KEY, 'park'), agent);
      const escalated = await step(waiting, fire(suspended, 3), agent);
      expect(escalated.deferred.map((d) => d.inboxSeq)).toEqual([2]);
      expect(needsDrain(escalated)).toBe(false);
    });

    it('treats an EXPIRED result after an escalation as an answer that resumes the agent (B09)', async () => {
      const { agent } = agentWith(ESCALATE);
      const suspended = await step(undefined, eventElement(1, KEY, 'charge'), agent);
      const escalated = await step(suspended, fire(suspended, 2), agent);
      const resumed = await step(escalated, resultElement(3, KEY, id(0), { status: 3, payload: '', eventTimeMs: DEADLINE + 100 }), agent);
      expect(outboxOutputs(resumed)).toEqual(['resumed:expired']);
    });
  });
});
