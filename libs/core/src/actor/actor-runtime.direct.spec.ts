// Direct elements skip ingress, so the runtime is where their refusals are committed (or, for an unhosted agent, only recorded); in-memory ports show every write and publish that decision makes.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { errorMessageId } from '../ids/message-id.js';
import { ErrorReason } from '../vocabulary/error-reason.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { eventElement, T0, utf8Bytes } from '../testing/inbox-elements.js';
import { flushMicrotasks } from '../testing/manual-timers.js';
import { emptyActorDocument, type ActorDocument } from './actor-document.js';
import type { ProcessOutcome } from './actor-runtime.js';
import type { DirectElementScreen } from './element-refusal.js';
import type { InboxElement } from './inbox-element.js';
import { encodeActorDocument } from './state-codec.js';

const text = new TextDecoder();

/** Counts its runs and outputs `<event>#<seq>`. */
function counting(): { agent: AgentDefinition; runs: () => number } {
  let runs = 0;
  return {
    agent: {
      name: 'tally',
      handler: (ctx) => {
        runs += 1;
        return { kind: 'complete', output: `${ctx.eventText()}#${ctx.seq}` };
      },
    },
    runs: () => runs,
  };
}

/** A stand-in for the ingress rules: unknown agents and the event `bad` are refused. */
const screen: DirectElementScreen = (element, agent) => {
  if (agent !== 'tally') return { reason: ErrorReason.UnknownAgent, detail: `no agent named '${agent}' is deployed` };
  if (element.payload.kind === 'event' && text.decode(element.payload.event) === 'bad') return { reason: ErrorReason.MalformedInput, detail: 'the event must not be bad' };
  return undefined;
};

const direct = (inboxSeq: number, key: string, event: string): InboxElement => ({ ...eventElement(inboxSeq, key, event), direct: true });

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('expected a value');
  return value;
}

describe('ActorRuntime with direct elements', () => {
  it('commits a refused direct event as lastAppliedSeq plus one error record and never runs the agent', async () => {
    const { agent, runs } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });

    const outcome = await h.process('tally', direct(1, 'k', 'bad'));

    expect(outcome).toMatchObject({ kind: 'applied', report: { status: 'refused', reason: ErrorReason.MalformedInput, seq: 0 } });
    expect(runs()).toBe(0);
    const doc = must(h.doc('tally', 'k'));
    expect({ seq: doc.seq, lastAppliedSeq: doc.lastAppliedSeq, memory: doc.memory.entries.length, outbox: doc.outbox.length }).toEqual({ seq: 0, lastAppliedSeq: 1, memory: 0, outbox: 1 });
    expect(h.errors('tally')).toEqual([{ agent: 'tally', entityKey: utf8Bytes('k'), reason: ErrorReason.MalformedInput, detail: 'the event must not be bad', eventTimeMs: T0 }]);
    expect(must(h.stored[0]).msgId).toBe(errorMessageId('tally', utf8Bytes('k'), 1));
  });

  it('keeps the partition going: the next direct event of the key runs at the seq the refusal left unchanged', async () => {
    const { agent, runs } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });
    await h.process('tally', direct(1, 'k', 'bad'));
    const next = await h.process('tally', direct(2, 'k', 'good'));
    expect(next).toMatchObject({ kind: 'applied', report: { status: 'completed' } });
    expect(h.outputs('tally', 'k')).toEqual(['good#0']);
    expect(runs()).toBe(1);
  });

  it('treats a redelivered refusal as a duplicate and stores its record once', async () => {
    const { agent } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });
    await h.process('tally', direct(1, 'k', 'bad'));
    expect(await h.process('tally', direct(1, 'k', 'bad'))).toEqual({ kind: 'duplicate' } satisfies ProcessOutcome);
    expect(h.errors('tally')).toHaveLength(1);
    expect(h.store.commits).toBe(1);
  });

  it('leaves a live suspension of the key exactly as it was when it refuses a direct event', async () => {
    const { agent } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });
    const stateKey = ActorHarness.stateKey('tally', 'k');
    const suspended: ActorDocument = {
      ...emptyActorDocument('tally', utf8Bytes('k')),
      seq: 3,
      lastAppliedSeq: 5,
      ownerEpoch: 1,
      continuation: { seq: 2, stepIndex: 1, pendingIntentIds: ['i-1'], snapshot: utf8Bytes('s'), suspendedAtMs: T0, deadlineMs: T0 + 60_000, escalations: 0, traceId: new Uint8Array(16) },
    };
    h.store.put(stateKey, encodeActorDocument(suspended));
    await h.process('tally', direct(6, 'k', 'bad'));
    const doc = must(h.doc('tally', 'k'));
    expect(doc.continuation).toEqual(suspended.continuation);
    expect(doc.deferred).toEqual([]);
    expect({ seq: doc.seq, lastAppliedSeq: doc.lastAppliedSeq }).toEqual({ seq: 3, lastAppliedSeq: 6 });
  });

  it('is fenced, and records nothing, when a newer owner already wrote the key', async () => {
    const { agent } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen, ownerEpoch: 1 });
    h.store.put(ActorHarness.stateKey('tally', 'k'), encodeActorDocument({ ...emptyActorDocument('tally', utf8Bytes('k')), ownerEpoch: 9 }));
    expect(await h.process('tally', direct(1, 'k', 'bad'))).toEqual({ kind: 'fenced', storedEpoch: 9 });
    expect(h.stored).toHaveLength(0);
  });

  it('records unknown_agent for a direct event of an agent not hosted here without touching state or holding the element', async () => {
    const { agent } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });

    const outcome = await h.process('ghost', direct(4, 'k', 'hello'));

    expect(outcome).toEqual({ kind: 'refused', reason: ErrorReason.UnknownAgent } satisfies ProcessOutcome);
    expect({ loads: h.store.loads, commits: h.store.commits }).toEqual({ loads: 0, commits: 0 });
    expect(h.errors('ghost')).toEqual([{ agent: 'ghost', entityKey: utf8Bytes('k'), reason: ErrorReason.UnknownAgent, detail: "no agent named 'ghost' is deployed", eventTimeMs: T0 }]);
    expect(must(h.stored[0]).msgId).toBe(errorMessageId('ghost', utf8Bytes('k'), 4));
    expect(h.observer.of('retrying')).toHaveLength(0);
    expect(h.observer.of('refused')).toEqual([{ type: 'refused', stateKey: ActorHarness.stateKey('ghost', 'k'), reason: ErrorReason.UnknownAgent }]);
  });

  it('republishes the same record id when an unhosted direct event is redelivered, so the stream keeps one', async () => {
    const h = new ActorHarness({ agents: [counting().agent], screenDirect: screen });
    await h.process('ghost', direct(4, 'k', 'hello'));
    await h.process('ghost', direct(4, 'k', 'hello'));
    expect(h.publisher.batches).toHaveLength(2);
    expect(h.errors('ghost')).toHaveLength(1);
  });

  it('retries the record in place while the errors stream cannot store it', async () => {
    const h = new ActorHarness({ agents: [counting().agent], screenDirect: screen });
    h.publisher.failNext(2);
    expect(await h.process('ghost', direct(4, 'k', 'hello'))).toEqual({ kind: 'refused', reason: ErrorReason.UnknownAgent });
    expect(h.observer.of('retrying').map((r) => r.error.name)).toEqual(['InjectedPublishFault', 'InjectedPublishFault']);
    expect(h.errors('ghost')).toHaveLength(1);
  });

  it('screens an event without the direct header too (the header is only what the publisher says), and still holds one for an unhosted agent (deploy skew)', async () => {
    const { agent, runs } = counting();
    const h = new ActorHarness({ agents: [agent], screenDirect: screen });
    expect(await h.process('tally', eventElement(1, 'k', 'bad'))).toMatchObject({ kind: 'applied', report: { status: 'refused', reason: ErrorReason.MalformedInput } });
    expect(runs()).toBe(0);
    expect(h.errors('tally')).toHaveLength(1);

    const controller = new AbortController();
    const pending = h.runtime.process(eventElement(2, 'k', 'hello'), h.scope('ghost', 'k', { signal: controller.signal }));
    await flushMicrotasks();
    while (h.observer.of('retrying').length < 2) {
      if (!h.timers.fireNext()) throw new Error('no retry timer scheduled');
      await flushMicrotasks();
    }
    controller.abort();
    await expect(pending).resolves.toEqual({ kind: 'abandoned' });
    expect(h.errors('ghost')).toHaveLength(0);
  });
});
