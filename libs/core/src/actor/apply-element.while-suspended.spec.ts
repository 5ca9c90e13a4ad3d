// What an event does to a suspended key (defer, bounded, in order; or supersede) and how deferred events are drained is decided by the pure step, so its documents are checked here element by element; the runtime's drain loop is covered in actor-runtime.drain.spec.ts.
import { describe, expect, it, vi } from 'vitest';
import type { AgentDefinition, AgentHandler } from '../agent/agent-definition.js';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome } from '../agent/outcome.js';
import type { SuspensionPolicy } from '../agent/suspension-policy.js';
import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import { intentId } from '../ids/intent-id.js';
import { applyDeps, commitReport, committedDoc, outboxErrors, outboxOutputs } from '../testing/apply-element-fixtures.js';
import { approvalElement, eventElement, T0, utf8Bytes } from '../testing/inbox-elements.js';
import type { ActorDocument } from './actor-document.js';
import { applyElement } from './apply-element.js';
import type { ApplyDeps } from './apply-result.js';
import { drainDeferred, needsDrain } from './deferral.js';
import type { InboxElement } from './inbox-element.js';
import { encodeActorDocument } from './state-codec.js';

const AGENT = 'triage';
const KEY = 'order-42';
const KEY_BYTES = utf8Bytes(KEY);
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const id = (step: number, seq = 0): string => intentId(AGENT, KEY_BYTES, seq, step);

/**
 * `ask`: request approval and suspend; `ask-fail`: same, and its resume throws; `boom`: throw;
 * `park`: suspend with nothing staged; anything else: complete `note:<event>#<seq>`. A resume
 * completes `approved#<seq>`.
 */
const handler: AgentHandler = (ctx: ActivationContext): Outcome => {
  if (ctx.isResume) {
    if (ctx.snapshotJson<string>() === 'ask-fail') throw new Error('resume broke');
    return { kind: 'complete', output: `approved#${ctx.seq}` };
  }
  const event = ctx.eventText();
  if (event.startsWith('ask')) return (ctx.requestApproval({}), { kind: 'suspend', snapshot: JSON.stringify(event) });
  if (event === 'park') return { kind: 'suspend' };
  if (event === 'boom') throw new Error('kaboom');
  return { kind: 'complete', output: `note:${event}#${ctx.seq}` };
};

const agentWith = (suspension?: SuspensionPolicy): AgentDefinition => ({ name: AGENT, handler, ...(suspension ? { suspension } : {}) });

async function step(state: ActorDocument | undefined, element: InboxElement, agent: AgentDefinition, overrides: Partial<ApplyDeps> = {}): Promise<ActorDocument> {
  return committedDoc(await applyElement(state, element, applyDeps(agent, overrides)));
}

/** A key suspended at seq 0 on an approval request (inbox element 1). */
async function suspendedOn(agent: AgentDefinition, ask = 'ask'): Promise<ActorDocument> {
  return step(undefined, eventElement(1, KEY, ask), agent);
}

/** Drains every deferred event, one commit each, returning the documents in order. */
async function drainAll(state: ActorDocument, agent: AgentDefinition): Promise<ActorDocument[]> {
  const commits: ActorDocument[] = [];
  let current = state;
  while (needsDrain(current)) {
    current = committedDoc(await drainDeferred(current, applyDeps(agent)));
    commits.push(current);
  }
  return commits;
}

describe('applyElement: events while suspended', () => {
  describe('defer (the default)', () => {
    it('parks the event in order with its event time and trace headers, running nothing and leaving the suspension as it was', async () => {
      const spy = vi.fn(handler);
      const agent: AgentDefinition = { name: AGENT, handler: spy };
      const suspended = await suspendedOn(agent);
      spy.mockClear();
      const element = eventElement(2, KEY, 'x', { eventTimeMs: T0 + 7, headers: [{ name: 'traceparent', value: TRACEPARENT }, { name: 'x-private', value: 'dropped' }] });
      const result = await applyElement(suspended, element, applyDeps(agent));
      const next = committedDoc(result);
      expect(spy).not.toHaveBeenCalled();
      expect(hex(encodeActorDocument(next))).toBe(
        hex(encodeActorDocument({ ...suspended, lastAppliedSeq: 2, outbox: [], deferred: [{ inboxSeq: 2, event: utf8Bytes('x'), eventTimeMs: T0 + 7, headers: [{ name: 'traceparent', value: TRACEPARENT }] }] })),
      );
      expect(commitReport(result)).toEqual({ status: 'deferred', seq: 1, outputs: 0 });
    });

    it('keeps arrival order across several deferred events', async () => {
      const agent = agentWith();
      let state = await suspendedOn(agent);
      for (const [index, event] of ['x', 'y', 'z'].entries()) state = await step(state, eventElement(index + 2, KEY, event), agent);
      expect(state.deferred.map((d) => [d.inboxSeq, new TextDecoder().decode(d.event)])).toEqual([[2, 'x'], [3, 'y'], [4, 'z']]);
      expect(needsDrain(state)).toBe(false);
    });

    it('refuses an event beyond maxDeferred as a deferred_overflow record and keeps the queue as it was', async () => {
      const agent = agentWith({ maxDeferred: 2 });
      let state = await suspendedOn(agent);
      for (const [index, event] of ['x', 'y'].entries()) state = await step(state, eventElement(index + 2, KEY, event), agent);
      const result = await applyElement(state, eventElement(4, KEY, 'z', { eventTimeMs: T0 + 4 }), applyDeps(agent));
      const next = committedDoc(result);
      expect(hex(encodeActorDocument(next))).toBe(hex(encodeActorDocument({ ...state, lastAppliedSeq: 4, outbox: next.outbox })));
      expect(next.outbox.map((e) => [e.subject, e.msgId])).toEqual([[`agents.errors.${AGENT}.deferred_overflow`, errorMessageId(AGENT, KEY_BYTES, 4)]]);
      expect(outboxErrors(next)).toEqual([{ agent: AGENT, entityKey: KEY_BYTES, reason: 'deferred_overflow', detail: 'deferred=2,max=2', eventTimeMs: T0 + 4 }]);
      expect(commitReport(result)).toMatchObject({ status: 'failed', reason: 'deferred_overflow' });
    });
  });

  describe('draining deferred events', () => {
    it('owes a drain once the suspension ends with events waiting, and not before', async () => {
      const agent = agentWith();
      const suspended = await suspendedOn(agent);
      const waiting = await step(suspended, eventElement(2, KEY, 'x'), agent);
      expect(needsDrain(waiting)).toBe(false);
      const resumed = await step(waiting, approvalElement(3, KEY, id(0)), agent);
      expect(resumed.continuation).toBeUndefined();
      expect(needsDrain(resumed)).toBe(true);
      expect(needsDrain(await step(suspended, approvalElement(2, KEY, id(0)), agent))).toBe(false);
    });

    it('runs the oldest event per call at the next seq, keeping lastAppliedSeq, until the queue is empty', async () => {
      const agent = agentWith();
      let state = await suspendedOn(agent);
      state = await step(state, eventElement(2, KEY, 'x', { eventTimeMs: T0 + 2 }), agent);
      state = await step(state, eventElement(3, KEY, 'y', { eventTimeMs: T0 + 3 }), agent);
      const resumed = await step(state, approvalElement(4, KEY, id(0)), agent);
      expect(outboxOutputs(resumed)).toEqual(['approved#0']);

      const [first, second, ...rest] = await drainAll(resumed, agent);
      expect(rest).toEqual([]);
      expect(outboxOutputs(first!)).toEqual(['note:x#2']);
      expect(outboxOutputs(second!)).toEqual(['note:y#3']);
      expect(first).toMatchObject({ seq: 3, lastAppliedSeq: 4, deferred: [{ inboxSeq: 3 }] });
      expect(second).toMatchObject({ seq: 4, lastAppliedSeq: 4, deferred: [] });
      expect(first?.outbox[0]?.msgId).toBe(outputMessageId(AGENT, KEY_BYTES, 2, 0));
      expect(second?.outbox[0]?.msgId).toBe(outputMessageId(AGENT, KEY_BYTES, 3, 0));
      expect(first?.outbox[0]?.headers).toContainEqual({ name: 'Agents-Event-Time', value: String(T0 + 2) });
    });

    it('carries the deferred event’s trace headers onto what it causes', async () => {
      const agent = agentWith();
      const waiting = await step(await suspendedOn(agent), eventElement(2, KEY, 'x', { headers: [{ name: 'traceparent', value: TRACEPARENT }] }), agent);
      const [drained] = await drainAll(await step(waiting, approvalElement(3, KEY, id(0)), agent), agent);
      expect(drained?.outbox[0]?.headers).toContainEqual({ name: 'traceparent', value: TRACEPARENT });
    });

    it('stops when a drained event suspends again; the rest keep waiting behind the new suspension', async () => {
      const agent = agentWith();
      let state = await suspendedOn(agent);
      state = await step(state, eventElement(2, KEY, 'ask'), agent);
      state = await step(state, eventElement(3, KEY, 'y'), agent);
      const commits = await drainAll(await step(state, approvalElement(4, KEY, id(0)), agent), agent);
      expect(commits).toHaveLength(1);
      const [resuspended] = commits;
      expect(resuspended?.continuation).toMatchObject({ seq: 2, pendingIntentIds: [id(0, 2)] });
      expect(resuspended?.deferred.map((d) => d.inboxSeq)).toEqual([3]);
      expect(needsDrain(resuspended!)).toBe(false);
    });

    it('consumes a drained event that fails, recording activation_error under its own inbox sequence, and goes on', async () => {
      const agent = agentWith();
      let state = await suspendedOn(agent);
      state = await step(state, eventElement(2, KEY, 'boom'), agent);
      state = await step(state, eventElement(3, KEY, 'y'), agent);
      const resumed = await step(state, approvalElement(4, KEY, id(0)), agent);
      const [failed, next] = await drainAll(resumed, agent);
      expect(outboxErrors(failed!)).toMatchObject([{ reason: 'activation_error', detail: 'Error: kaboom failed_at_step=0 after=activation_start' }]);
      expect(failed?.outbox[0]?.msgId).toBe(errorMessageId(AGENT, KEY_BYTES, 2));
      expect(failed).toMatchObject({ seq: resumed.seq, lastAppliedSeq: 4, deferred: [{ inboxSeq: 3 }] });
      expect(outboxOutputs(next!)).toEqual(['note:y#2']);
    });

    it('is a noop while suspended or with nothing deferred', async () => {
      const agent = agentWith();
      const suspended = await suspendedOn(agent);
      expect(await drainDeferred(await step(suspended, eventElement(2, KEY, 'x'), agent), applyDeps(agent))).toEqual({ kind: 'noop' });
      expect(await drainDeferred(await step(suspended, approvalElement(2, KEY, id(0)), agent), applyDeps(agent))).toEqual({ kind: 'noop' });
    });

    it('queues a new event behind events still waiting for their drain, so order holds', async () => {
      const agent = agentWith();
      const waiting = await step(await suspendedOn(agent), eventElement(2, KEY, 'x'), agent);
      const resumed = await step(waiting, approvalElement(3, KEY, id(0)), agent);
      const late = await step(resumed, eventElement(4, KEY, 'y'), agent);
      expect(late.deferred.map((d) => d.inboxSeq)).toEqual([2, 4]);
      expect((await drainAll(late, agent)).map((doc) => outboxOutputs(doc))).toEqual([['note:x#2'], ['note:y#3']]);
    });

    it('keeps the queue when a failing resume leaves the suspension in place', async () => {
      const agent = agentWith();
      const waiting = await step(await suspendedOn(agent, 'ask-fail'), eventElement(2, KEY, 'x'), agent);
      const failed = await step(waiting, approvalElement(3, KEY, id(0)), agent);
      expect(outboxErrors(failed)).toMatchObject([{ reason: 'activation_error' }]);
      expect(failed.continuation).toEqual(waiting.continuation);
      expect(failed.deferred).toEqual(waiting.deferred);
      expect(needsDrain(failed)).toBe(false);
    });
  });

  describe('supersede', () => {
    const agent = agentWith({ whileSuspended: 'supersede' });

    it('runs the event at once at the current seq and clears the continuation, pending intents and deadline timer', async () => {
      const suspended = await suspendedOn(agent);
      const result = await applyElement(suspended, eventElement(2, KEY, 'now'), applyDeps(agent));
      const next = committedDoc(result);
      expect(outboxOutputs(next)).toEqual(['note:now#1']);
      expect(next).toMatchObject({ seq: 2, lastAppliedSeq: 2, continuation: undefined, pending: [], timers: [], deferred: [] });
      expect(commitReport(result)).toMatchObject({ status: 'completed', seq: 1, resumed: false });
    });

    it('orphans answers to the superseded intents: no_continuation after a completion, unknown_intent under a new suspension', async () => {
      const suspended = await suspendedOn(agent);
      const completed = await step(suspended, eventElement(2, KEY, 'now'), agent);
      expect(outboxErrors(await step(completed, approvalElement(3, KEY, id(0)), agent))).toMatchObject([{ detail: `no_continuation:${id(0)}` }]);
      const resuspended = await step(suspended, eventElement(2, KEY, 'ask'), agent);
      expect(resuspended.continuation).toMatchObject({ seq: 1, stepIndex: 1, pendingIntentIds: [id(0, 1)] });
      expect(outboxErrors(await step(resuspended, approvalElement(3, KEY, id(0)), agent))).toMatchObject([{ detail: `unknown_intent:${id(0)}` }]);
    });

    it('keeps the suspension when the superseding activation fails: a failed element commits only its record (invariant 1)', async () => {
      const suspended = await suspendedOn(agent);
      const next = await step(suspended, eventElement(2, KEY, 'boom'), agent);
      expect(outboxErrors(next)).toMatchObject([{ reason: 'activation_error' }]);
      expect(hex(encodeActorDocument(next))).toBe(hex(encodeActorDocument({ ...suspended, lastAppliedSeq: 2, outbox: next.outbox })));
      const resumed = await step(next, approvalElement(3, KEY, id(0)), agent);
      expect(outboxOutputs(resumed)).toEqual(['approved#0']);
    });

    it('still defers while events deferred under an earlier policy wait, so they are not overtaken', async () => {
      const deferring = agentWith();
      const waiting = await step(await suspendedOn(deferring), eventElement(2, KEY, 'x'), deferring);
      const next = await step(waiting, eventElement(3, KEY, 'y'), agent);
      expect(next.continuation).toEqual(waiting.continuation);
      expect(next.deferred.map((d) => d.inboxSeq)).toEqual([2, 3]);
    });
  });
});
