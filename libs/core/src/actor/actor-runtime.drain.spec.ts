// The drain loop, crash recovery mid-drain, the published flag and the timer-index hooks are properties of the runtime's commit loop, not of the pure step; an in-memory CAS store with commit faults, a recording publisher, a recording timer index and a manual clock reproduce each crash point without a broker.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { ActivationContext } from '../agent/activation-context.js';
import type { Outcome } from '../agent/outcome.js';
import type { SuspensionPolicy } from '../agent/suspension-policy.js';
import { intentId } from '../ids/intent-id.js';
import { signIntent, verifyIntent } from '../signing/intent-signing.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { deadlineTimer } from '../testing/apply-element-fixtures.js';
import { approvalElement, eventElement, timerElement, timerFiring, T0, utf8Bytes } from '../testing/inbox-elements.js';
import { InMemoryStateStore } from '../testing/in-memory-state-store.js';
import { flushMicrotasks } from '../testing/manual-timers.js';
import { RecordingTimerIndex } from '../testing/recording-timer-index.js';
import { TimerKind, type ActorDocument, type TimerDoc } from './actor-document.js';
import type { ProcessOutcome } from './actor-runtime.js';
import type { InboxElement } from './inbox-element.js';
import { decodeToolIntent } from './state-codec.js';

const AGENT = 'desk';
const KEY = 'k';
const KEY_BYTES = utf8Bytes(KEY);
const STATE_KEY = ActorHarness.stateKey(AGENT, KEY);
const TIMEOUT = 1_000;
const DEADLINE_TIMER: TimerDoc = { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: T0 + TIMEOUT };
const id = (step: number, seq = 0): string => intentId(AGENT, KEY_BYTES, seq, step);

/** `ask`: request approval, suspend for 1 s; `<x>`: complete `note:<x>#<seq>`. Resumes complete `approved#<seq>`, `rejected#<seq>` or `timeout#<seq>`. */
function desk(suspension?: SuspensionPolicy): AgentDefinition {
  const handler = (ctx: ActivationContext): Outcome => {
    if (ctx.isResume) {
      const verdict = ctx.resumeTimedOut ? 'timeout' : ctx.resumeApproval?.approved ? 'approved' : 'rejected';
      return { kind: 'complete', output: `${verdict}#${ctx.seq}` };
    }
    const event = ctx.eventText();
    if (event === 'ask') return (ctx.requestApproval({ amount: 900 }), { kind: 'suspend', timeoutMs: TIMEOUT });
    return { kind: 'complete', output: `note:${event}#${ctx.seq}` };
  };
  return { name: AGENT, handler, ...(suspension ? { suspension } : {}) };
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('expected a value');
  return value;
}

/** Suspends the key (element 1) and parks `events` behind it (elements 2…); returns the next inbox seq. */
async function suspendWithDeferred(h: ActorHarness, events: readonly string[]): Promise<number> {
  await h.process(AGENT, eventElement(1, KEY, 'ask'));
  for (const [index, event] of events.entries()) await h.process(AGENT, eventElement(index + 2, KEY, event));
  return events.length + 2;
}

/** Processes `element` and abandons it (the process "crashes") as soon as the runtime reports its first retry. */
async function crashAtFirstRetry(h: ActorHarness, element: InboxElement): Promise<ProcessOutcome> {
  const controller = new AbortController();
  const pending = h.runtime.process(element, h.scope(AGENT, KEY, { signal: controller.signal }));
  await flushMicrotasks();
  while (h.observer.of('retrying').length === 0) {
    if (!h.timers.fireNext()) throw new Error('the runtime neither retried nor settled');
    await flushMicrotasks();
  }
  controller.abort();
  return pending;
}

const statuses = (h: ActorHarness): string[] => h.observer.of('committed').map((n) => n.report.status);

describe('ActorRuntime: the deferred drain', () => {
  it('runs each deferred event as its own commit, in order, before process returns the resume', async () => {
    const h = new ActorHarness({ agents: [desk()] });
    const next = await suspendWithDeferred(h, ['x', 'y']);
    const outcome = await h.process(AGENT, approvalElement(next, KEY, id(0)));
    expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'completed', seq: 0, resumed: true } });
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2', 'note:y#3']);
    expect(statuses(h)).toEqual(['suspended', 'deferred', 'deferred', 'completed', 'completed', 'completed']);
    expect(h.store.commits).toBe(6);
    expect(h.doc(AGENT, KEY)).toMatchObject({ seq: 4, lastAppliedSeq: next, deferred: [], continuation: undefined });
  });

  it('drains after a deny firing and after a drop, the deadline commit first', async () => {
    for (const [policy, first] of [[undefined, 'timeout#0'], [{ onTimeout: 'drop' } as const, undefined]] as const) {
      const h = new ActorHarness({ agents: [desk(policy)] });
      const next = await suspendWithDeferred(h, ['x']);
      await h.process(AGENT, timerFiring(next, KEY, deadlineTimer(must(h.doc(AGENT, KEY)))));
      expect(h.outputs(AGENT, KEY)).toEqual(first === undefined ? ['note:x#1'] : [first, 'note:x#2']);
      expect(h.doc(AGENT, KEY)?.deferred).toEqual([]);
    }
  });

  it('stops draining when a drained event suspends, and the next answer drains the rest', async () => {
    const h = new ActorHarness({ agents: [desk()] });
    const next = await suspendWithDeferred(h, ['ask', 'y']);
    await h.process(AGENT, approvalElement(next, KEY, id(0)));
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0']);
    expect(h.doc(AGENT, KEY)).toMatchObject({ continuation: { seq: 2 }, deferred: [{ inboxSeq: 3 }] });
    await h.process(AGENT, approvalElement(next + 1, KEY, id(0, 2)));
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'approved#2', 'note:y#4']);
  });

  it('retries a drain commit that failed before writing, in place, and publishes each output once', async () => {
    const h = new ActorHarness({ agents: [desk()], store: new InMemoryStateStore().failCommit(5, 'before-write') });
    const next = await suspendWithDeferred(h, ['x', 'y']);
    expect(await h.process(AGENT, approvalElement(next, KEY, id(0)))).toMatchObject({ kind: 'applied', report: { resumed: true } });
    expect(h.observer.of('retrying')).toHaveLength(1);
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2', 'note:y#3']);
    expect(h.doc(AGENT, KEY)?.deferred).toEqual([]);
  });

  it('republishes a drain commit whose write landed ambiguously, then finishes the drain', async () => {
    const h = new ActorHarness({ agents: [desk()], store: new InMemoryStateStore().failCommit(5, 'after-write') });
    const next = await suspendWithDeferred(h, ['x', 'y']);
    await h.process(AGENT, approvalElement(next, KEY, id(0)));
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2', 'note:y#3']);
    expect(h.store.writes.filter((w) => w.stateKey === STATE_KEY)).toHaveLength(6);
  });

  it('resumes a drain cut short by a crash when the element is redelivered to a new process', async () => {
    const h = new ActorHarness({ agents: [desk()], store: new InMemoryStateStore().failCommit(5, 'before-write') });
    const next = await suspendWithDeferred(h, ['x', 'y']);
    const answer = approvalElement(next, KEY, id(0));
    expect(await crashAtFirstRetry(h, answer)).toEqual({ kind: 'abandoned' });
    expect(h.doc(AGENT, KEY)).toMatchObject({ continuation: undefined, lastAppliedSeq: next, deferred: [{ inboxSeq: 2 }, { inboxSeq: 3 }] });

    const restarted = new ActorHarness({ agents: [desk()], store: h.store, publisher: h.publisher });
    expect(await restarted.process(AGENT, answer)).toMatchObject({ kind: 'applied', report: { status: 'completed', seq: 2 } });
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2', 'note:y#3']);
    expect(h.doc(AGENT, KEY)?.deferred).toEqual([]);
  });

  it('publishes the outbox of a resume whose publish was cut short, before draining over it', async () => {
    const h = new ActorHarness({ agents: [desk()] });
    const next = await suspendWithDeferred(h, ['x']);
    const answer = approvalElement(next, KEY, id(0));
    h.publisher.failNext(1);
    expect(await crashAtFirstRetry(h, answer)).toEqual({ kind: 'abandoned' });
    expect(h.outputs(AGENT, KEY)).toEqual([]);

    const restarted = new ActorHarness({ agents: [desk()], store: h.store, publisher: h.publisher });
    await restarted.process(AGENT, answer);
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2']);
  });

  it('never drains for an older redelivered element, which would overwrite an outbox not yet published', async () => {
    const h = new ActorHarness({ agents: [desk()] });
    const next = await suspendWithDeferred(h, ['x']);
    const answer = approvalElement(next, KEY, id(0));
    h.publisher.failNext(1);
    expect(await crashAtFirstRetry(h, answer)).toEqual({ kind: 'abandoned' });

    // After a takeover the new owner redelivers from the ack floor: the deferred event (its ack was lost) comes before the answer.
    const restarted = new ActorHarness({ agents: [desk()], store: h.store, publisher: h.publisher });
    expect(await restarted.process(AGENT, eventElement(2, KEY, 'x'))).toEqual({ kind: 'duplicate' });
    await restarted.process(AGENT, answer);
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2']);
  });

  describe('the published flag', () => {
    it('does not republish or commit when the process that drained sees the element again', async () => {
      const h = new ActorHarness({ agents: [desk()] });
      const next = await suspendWithDeferred(h, ['x']);
      const answer = approvalElement(next, KEY, id(0));
      await h.process(AGENT, answer);
      const [batches, commits] = [h.publisher.batches.length, h.store.commits];
      expect(await h.process(AGENT, answer)).toEqual({ kind: 'duplicate' });
      expect([h.publisher.batches.length, h.store.commits]).toEqual([batches, commits]);
    });

    it('lets a restarted process republish only the last commit’s outbox, stored once', async () => {
      const h = new ActorHarness({ agents: [desk()] });
      const next = await suspendWithDeferred(h, ['x']);
      const answer = approvalElement(next, KEY, id(0));
      await h.process(AGENT, answer);
      const restarted = new ActorHarness({ agents: [desk()], store: h.store, publisher: h.publisher });
      expect(await restarted.process(AGENT, answer)).toEqual({ kind: 'duplicate' });
      expect(h.publisher.batches.at(-1)?.map((e) => new TextDecoder().decode(e.payload))).toEqual(['note:x#2']);
      expect(h.outputs(AGENT, KEY)).toEqual(['approved#0', 'note:x#2']);
    });
  });
});

describe('ActorRuntime: escalation retried at the runtime (E01)', () => {
  it.each(['before-write', 'after-write'] as const)('commits and publishes exactly one escalation when its commit fails %s once', async (fault) => {
    const store = new InMemoryStateStore().failCommit(2, fault);
    const h = new ActorHarness({ agents: [desk({ onTimeout: 'escalate', maxEscalations: 1, escalationChannel: 'pager', escalationTimeoutMs: 5_000 })], store });
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    await h.process(AGENT, timerFiring(2, KEY, DEADLINE_TIMER));
    expect(h.observer.of('retrying')).toHaveLength(1);
    const intents = h.stored.filter((e) => e.subject.startsWith('agents.approval-requests.')).map((e) => decodeToolIntent(Uint8Array.from(e.payload)));
    expect(intents.map((i) => [i.intentId, i.stepIndex, i.toolName])).toEqual([[id(0), 0, 'approval'], [id(1), 1, 'pager']]);
    await h.process(AGENT, approvalElement(3, KEY, id(1), { eventTimeMs: T0 + TIMEOUT + 10 }));
    expect(h.outputs(AGENT, KEY)).toEqual(['approved#0']);
    expect(h.errors(AGENT)).toEqual([]);
  });
});

describe('ActorRuntime: the timer index', () => {
  function indexed(agent: AgentDefinition = desk()): { h: ActorHarness; index: RecordingTimerIndex } {
    const store = new InMemoryStateStore();
    const index = new RecordingTimerIndex(() => store.writes.length);
    return { h: new ActorHarness({ agents: [agent], store, timerIndex: index }), index };
  }
  const owner = { stateKey: STATE_KEY, agent: AGENT, entityKey: KEY_BYTES };

  it('is not called on the fast path', async () => {
    const { h, index } = indexed();
    await h.process(AGENT, eventElement(1, KEY, 'x'));
    expect(index.calls).toEqual([]);
  });

  it('indexes a suspension’s deadline before its commit and hands it to the schedule after', async () => {
    const { h, index } = indexed();
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    expect(index.calls).toEqual([
      { hook: 'beforeCommit', owner, timers: [DEADLINE_TIMER], witness: 0 },
      { hook: 'afterCommit', owner, timers: [DEADLINE_TIMER], witness: 1 },
    ]);
    expect(index.scheduled(STATE_KEY)).toEqual([DEADLINE_TIMER]);
  });

  it('leaves the index alone for a commit that keeps the timers, and empties it when the suspension ends', async () => {
    const { h, index } = indexed();
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    await h.process(AGENT, eventElement(2, KEY, 'x'));
    expect(index.calls).toHaveLength(2);
    await h.process(AGENT, approvalElement(3, KEY, id(0)));
    expect(index.calls.slice(2)).toEqual([
      { hook: 'beforeCommit', owner, timers: [], witness: 2 },
      { hook: 'afterCommit', owner, timers: [], witness: 3 },
    ]);
    expect(index.scheduled(STATE_KEY)).toBeUndefined();
  });

  it('re-indexes the extended deadline of an escalation', async () => {
    const { h, index } = indexed(desk({ onTimeout: 'escalate', escalationTimeoutMs: 5_000 }));
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    await h.process(AGENT, timerFiring(2, KEY, DEADLINE_TIMER));
    expect(index.scheduled(STATE_KEY)).toEqual([{ timerId: 'deadline-0-1', kind: TimerKind.Deadline, dueAtMs: T0 + TIMEOUT + 5_000 }]);
  });

  it('reconciles the index from the state on a noop firing, without committing', async () => {
    const { h, index } = indexed();
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    const commits = h.store.commits;
    expect(await h.process(AGENT, timerElement(2, KEY, { timer: { timerId: 'deadline-0-0', kind: TimerKind.Deadline, dueAtMs: T0 } }))).toEqual({ kind: 'noop' });
    expect(index.calls.at(-1)).toEqual({ hook: 'reconcile', owner, timers: [DEADLINE_TIMER], witness: 1 });
    expect(h.store.commits).toBe(commits);

    const other = indexed();
    expect(await other.h.process(AGENT, timerFiring(1, KEY, DEADLINE_TIMER))).toEqual({ kind: 'noop' });
    expect(other.index.calls).toEqual([{ hook: 'reconcile', owner, timers: [], witness: 0 }]);
  });

  it('still schedules a suspension’s deadline when the publish after its commit failed once', async () => {
    const { h, index } = indexed();
    h.publisher.failNext(1);
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    expect(index.scheduled(STATE_KEY)).toEqual([DEADLINE_TIMER]);
  });

  it('still schedules a suspension’s deadline when the index update after its commit failed once', async () => {
    const { h, index } = indexed();
    index.failNextAfterCommit(1);
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    expect(index.scheduled(STATE_KEY)).toEqual([DEADLINE_TIMER]);
  });

  it('schedules the deadline of a suspension committed by a process that crashed before updating the index', async () => {
    const { h, index } = indexed();
    index.failNextAfterCommit(1);
    const ask = eventElement(1, KEY, 'ask');
    expect(await crashAtFirstRetry(h, ask)).toEqual({ kind: 'abandoned' });
    const fresh = new RecordingTimerIndex();
    const restarted = new ActorHarness({ agents: [desk()], store: h.store, publisher: h.publisher, timerIndex: fresh });
    expect(await restarted.process(AGENT, ask)).toEqual({ kind: 'duplicate' });
    expect(fresh.scheduled(STATE_KEY)).toEqual([DEADLINE_TIMER]);
  });
});

describe('ActorRuntime: signing', () => {
  it('publishes intents signed by the configured signer and stores them unsigned', async () => {
    const key = { keyId: 'k1', secret: utf8Bytes('0123456789abcdef') };
    const h = new ActorHarness({ agents: [desk()], signer: (intent) => signIntent(intent, key) });
    await h.process(AGENT, eventElement(1, KEY, 'ask'));
    const [entry] = h.stored;
    const published = decodeToolIntent(Uint8Array.from(must(entry).payload));
    expect(published).toMatchObject({ intentId: id(0), signingKeyId: 'k1', signatureScheme: 1 });
    expect(verifyIntent(published, new Map([['k1', key.secret]]))).toEqual({ kind: 'ok' });
    const pending = (h.doc(AGENT, KEY) as ActorDocument).pending;
    expect(pending.map((i) => [i.intentId, i.signingKeyId, i.signature.length])).toEqual([[id(0), '', 0]]);
  });
});
