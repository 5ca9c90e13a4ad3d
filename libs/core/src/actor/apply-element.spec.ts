// applyElement is the pure per-element decision of ARCHITECTURE §5 (duplicate / fenced / noop / commit); with a scripted provider and a manual clock every A-scenario's document and outbox can be checked byte for byte, without a store.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AttemptMemo } from '../activation/attempt-memo.js';
import type { AgentDefinition, AgentHandler } from '../agent/agent-definition.js';
import type { Complete, OutputValue } from '../agent/outcome.js';
import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import type { ModelRequest } from '../model/model-request.js';
import { ProviderError } from '../model/provider-errors.js';
import { approvalElement, eventElement, resultElement, T0, timerElement, utf8Bytes } from '../testing/inbox-elements.js';
import { ManualTimers } from '../testing/manual-timers.js';
import { deferred, ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { testAddressing } from '../testing/test-addressing.js';
import { emptyActorDocument, type ActorDocument, type OutboxEntryDoc } from './actor-document.js';
import { applyElement } from './apply-element.js';
import type { ApplyDeps, ApplyResult } from './apply-result.js';
import { decodeErrorRecord } from './error-record.js';
import type { InboxElement } from './inbox-element.js';
import { encodeActorDocument } from './state-codec.js';

const AGENT = 'triage';
const KEY = 'order-42';
const KEY_BYTES = utf8Bytes(KEY);
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const complete = (output?: OutputValue): Complete => (output === undefined ? { kind: 'complete' } : { kind: 'complete', output });
const ping: ModelRequest = { model: 'fake-1', messages: [{ role: 'user', content: 'ping' }] };

function agentOf(handler: AgentHandler, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { name: AGENT, handler, ...extra };
}

function depsFor(agent: AgentDefinition, overrides: Partial<ApplyDeps> = {}): ApplyDeps {
  const timers = overrides.timers instanceof ManualTimers ? overrides.timers : new ManualTimers();
  return {
    agent,
    provider: ScriptedModelProvider.replying('pong'),
    addressing: testAddressing,
    timers,
    monotonicMs: timers.monotonicMs,
    ownerEpoch: 1,
    memo: new AttemptMemo(),
    activationTimeoutMs: 30_000,
    ...overrides,
  };
}

function committed(result: ApplyResult): ActorDocument {
  if (result.kind !== 'commit') throw new Error(`expected a commit, got ${result.kind}`);
  return result.next;
}

/** A key with history: one committed activation that wrote memory, cached a model answer and emitted. */
async function stateWithHistory(): Promise<ActorDocument> {
  const agent = agentOf(async (ctx) => {
    ctx.memory.append('seen', ctx.eventText());
    const answer = await ctx.callModel(ping);
    return complete(`${answer.text}#${ctx.seq}`);
  });
  return committed(await applyElement(undefined, eventElement(1, KEY, 'a'), depsFor(agent)));
}

/** What a failure commit must be: the state before, with only these three fields replaced. */
function failureOnly(state: ActorDocument, element: InboxElement, ownerEpoch: number, outbox: readonly OutboxEntryDoc[]): string {
  return hex(encodeActorDocument({ ...state, lastAppliedSeq: element.inboxSeq, ownerEpoch, outbox }));
}

function onlyErrorRecord(next: ActorDocument): ReturnType<typeof decodeErrorRecord> {
  expect(next.outbox).toHaveLength(1);
  const [entry] = next.outbox;
  if (entry === undefined) throw new Error('no outbox entry');
  return decodeErrorRecord(Uint8Array.from(entry.payload));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('applyElement', () => {
  describe('before running anything', () => {
    it('reports a duplicate for an element at or below lastAppliedSeq and runs nothing', async () => {
      const state = await stateWithHistory();
      const handler = vi.fn(() => complete('x'));
      expect(await applyElement(state, eventElement(1, KEY, 'again'), depsFor(agentOf(handler)))).toEqual({ kind: 'duplicate' });
      expect(await applyElement({ ...state, lastAppliedSeq: 5 }, eventElement(4, KEY, 'old'), depsFor(agentOf(handler)))).toEqual({ kind: 'duplicate' });
      expect(handler).not.toHaveBeenCalled();
      expect((await applyElement({ ...state, lastAppliedSeq: 5 }, eventElement(6, KEY, 'new'), depsFor(agentOf(handler)))).kind).toBe('commit');
    });

    it('reports fenced when the stored document was written by a higher epoch, before any duplicate check', async () => {
      const state = { ...(await stateWithHistory()), ownerEpoch: 7 };
      const handler = vi.fn(() => complete('x'));
      expect(await applyElement(state, eventElement(9, KEY, 'e'), depsFor(agentOf(handler), { ownerEpoch: 6 }))).toEqual({ kind: 'fenced', storedEpoch: 7 });
      expect(await applyElement(state, eventElement(1, KEY, 'dup'), depsFor(agentOf(handler), { ownerEpoch: 6 }))).toEqual({ kind: 'fenced', storedEpoch: 7 });
      expect(handler).not.toHaveBeenCalled();
    });

    it('takes over a document of a lower epoch and stamps the writer epoch on the commit', async () => {
      const state = await stateWithHistory();
      const next = committed(await applyElement(state, eventElement(2, KEY, 'b'), depsFor(agentOf(() => complete('ok')), { ownerEpoch: 4 })));
      expect(next.ownerEpoch).toBe(4);
    });
  });

  describe('a completed start (A01–A03)', () => {
    it('runs a fresh key at seq 0 over empty memory and commits seq 1 at the element', async () => {
      const seen: unknown[] = [];
      const agent = agentOf((ctx) => {
        seen.push({ seq: ctx.seq, keys: ctx.memory.keys(), size: ctx.memory.sizeBytes, isResume: ctx.isResume });
        return complete(String(ctx.seq));
      });
      const result = await applyElement(undefined, eventElement(3, KEY, 'e'), depsFor(agent, { ownerEpoch: 2 }));
      expect(seen).toEqual([{ seq: 0, keys: [], size: 0, isResume: false }]);
      const next = committed(result);
      expect(next).toMatchObject({ agent: AGENT, seq: 1, lastAppliedSeq: 3, ownerEpoch: 2, continuation: undefined, pending: [] });
      expect(hex(next.entityKey)).toBe(hex(KEY_BYTES));
      expect(result.kind === 'commit' && result.report).toMatchObject({ status: 'completed', seq: 0, outputs: 1 });
    });

    it('commits the memory the activation staged and drops its replay-cache entries, which no later activation can read', async () => {
      const next = await stateWithHistory();
      expect(next.memory.entries.map((e) => e.key)).toEqual(['seen']);
      expect(next.llmCache).toEqual({ entries: [], totalResponseBytes: 0 });
    });

    it('keeps the replay cache while a suspension is live, answers the resume from it, and drops it when the activation completes', async () => {
      const provider = ScriptedModelProvider.replying('pong');
      const agent = agentOf(async (ctx) => {
        const answer = await ctx.callModel(ping);
        if (!ctx.isResume) {
          ctx.act('lookup', {});
          return { kind: 'suspend' };
        }
        return complete(answer.text);
      });
      const suspended = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agent, { provider })));
      expect(suspended.continuation).toBeDefined();
      expect(suspended.llmCache.entries).toHaveLength(1);
      const intent = suspended.pending[0]!;
      const resumed = committed(await applyElement(suspended, resultElement(2, KEY, intent.intentId, { seq: intent.seq, payload: 'found' }), depsFor(agent, { provider })));
      expect(provider.calls).toBe(1);
      expect(resumed.continuation).toBeUndefined();
      expect(resumed.llmCache.entries).toEqual([]);
    });

    it('accumulates memory across activations: a#0, a,b#1, a,b,c#2', async () => {
      const agent = agentOf((ctx) => {
        ctx.memory.append('ring', ctx.eventText());
        return complete(`${ctx.memory.ringText('ring').join(',')}#${ctx.seq}`);
      });
      let state: ActorDocument | undefined;
      const outputs: string[] = [];
      for (const [index, event] of ['a', 'b', 'c'].entries()) {
        state = committed(await applyElement(state, eventElement(index + 1, KEY, event), depsFor(agent)));
        outputs.push(...state.outbox.map((o) => text(o.payload)));
      }
      expect(outputs).toEqual(['a#0', 'a,b#1', 'a,b,c#2']);
    });
  });

  describe('outputs', () => {
    it('publishes emitted outputs first, then the completion output, with ids derived from (agent, key, seq, index)', async () => {
      const state = await stateWithHistory();
      const agent = agentOf((ctx) => {
        ctx.emit('one');
        ctx.emit({ b: 2, a: 1 });
        return complete('final');
      });
      const element = eventElement(2, KEY, 'e', { eventTimeMs: T0 + 5, headers: [
        { name: 'traceparent', value: TRACEPARENT },
        { name: 'tracestate', value: 'vendor=1' },
        { name: 'x-private', value: 'not carried' },
      ] });
      const next = committed(await applyElement(state, element, depsFor(agent)));
      expect(next.outbox.map((o) => text(o.payload))).toEqual(['one', '{"a":1,"b":2}', 'final']);
      expect(next.outbox.map((o) => o.msgId)).toEqual([0, 1, 2].map((index) => outputMessageId(AGENT, KEY_BYTES, 1, index)));
      for (const entry of next.outbox) {
        expect(entry.subject).toBe(`agents.output.${AGENT}.${hex(KEY_BYTES)}`);
        expect(entry.headers).toEqual([
          { name: 'Agents-Seq', value: '1' },
          { name: 'Agents-Event-Time', value: String(T0 + 5) },
          { name: 'traceparent', value: TRACEPARENT },
          { name: 'tracestate', value: 'vendor=1' },
        ]);
      }
    });

    it('publishes nothing for an empty completion but still commits the activation', async () => {
      for (const output of [undefined, '', new Uint8Array(0)]) {
        const next = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agentOf(() => complete(output)))));
        expect(next.outbox).toEqual([]);
        expect(next.seq).toBe(1);
      }
    });

    it('mints the same ids and bytes when the same element is applied again to the same state', async () => {
      const state = await stateWithHistory();
      const agent = agentOf((ctx) => {
        ctx.emit(ctx.eventText());
        return complete({ seq: ctx.seq });
      });
      const first = committed(await applyElement(state, eventElement(2, KEY, 'e'), depsFor(agent)));
      const second = committed(await applyElement(state, eventElement(2, KEY, 'e'), depsFor(agent)));
      expect(hex(encodeActorDocument(second))).toBe(hex(encodeActorDocument(first)));
      expect(second.outbox.map((o) => o.msgId)).toEqual(first.outbox.map((o) => o.msgId));
    });
  });

  describe('a failed start (A05, A09)', () => {
    it('commits only lastAppliedSeq, the owner epoch and one activation_error record; memory, cache and seq stay', async () => {
      const state = await stateWithHistory();
      const agent = agentOf(async (ctx) => {
        ctx.memory.append('seen', 'boom');
        ctx.memory.set('scratch', 'x');
        ctx.emit('partial');
        await ctx.callModel({ model: 'fake-1', messages: ['other'] });
        throw new Error('kaboom');
      });
      const element = eventElement(2, KEY, 'boom', { eventTimeMs: T0 + 9, headers: [{ name: 'traceparent', value: TRACEPARENT }] });
      const result = await applyElement(state, element, depsFor(agent, { ownerEpoch: 3 }));
      const next = committed(result);
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(state, element, 3, next.outbox));
      expect(next.seq).toBe(state.seq);
      const [entry] = next.outbox;
      expect(entry?.subject).toBe(`agents.errors.${AGENT}.activation_error`);
      expect(entry?.msgId).toBe(errorMessageId(AGENT, KEY_BYTES, 2));
      expect(entry?.headers).toEqual([
        { name: 'Agents-Reason', value: 'activation_error' },
        { name: 'Agents-Agent', value: AGENT },
        { name: 'Agents-Event-Time', value: String(T0 + 9) },
        { name: 'traceparent', value: TRACEPARENT },
      ]);
      expect(onlyErrorRecord(next)).toEqual({
        agent: AGENT,
        entityKey: KEY_BYTES,
        reason: 'activation_error',
        detail: 'Error: kaboom failed_at_step=1 after=llm_call',
        eventTimeMs: T0 + 9,
      });
      expect(result.kind === 'commit' && result.report).toMatchObject({ status: 'failed', seq: 1, reason: 'activation_error', outputs: 0 });
    });

    it('names the activation start when the agent throws before staging anything', async () => {
      const next = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agentOf(() => {
        throw new TypeError('no amount');
      }))));
      expect(onlyErrorRecord(next).detail).toBe('TypeError: no amount failed_at_step=0 after=activation_start');
      expect(next).toMatchObject({ seq: 0, lastAppliedSeq: 1, memory: { entries: [] } });
    });

    it('names the step after a model call then a throw (A09)', async () => {
      const agent = agentOf(async (ctx) => {
        await ctx.callModel(ping);
        await ctx.callModel({ ...ping, messages: ['second'] });
        throw new RangeError('after two calls');
      });
      const next = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agent)));
      expect(onlyErrorRecord(next).detail).toBe('RangeError: after two calls failed_at_step=2 after=llm_call');
    });

    it('fails closed when the provider gives up, naming the model call that failed', async () => {
      const provider = new ScriptedModelProvider(() => {
        throw new ProviderError('upstream 503 after 3 attempts');
      });
      const agent = agentOf(async (ctx) => complete((await ctx.callModel(ping)).text));
      const next = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agent, { provider })));
      expect(onlyErrorRecord(next)).toMatchObject({ reason: 'activation_error', detail: 'ProviderError: upstream 503 after 3 attempts failed_at_step=1 after=llm_call' });
    });

    it('fails closed on an event that is not JSON when the agent asks for JSON', async () => {
      const next = committed(await applyElement(undefined, eventElement(1, KEY, 'not json'), depsFor(agentOf((ctx) => complete(ctx.eventJson<string>())))));
      expect(onlyErrorRecord(next).detail).toMatch(/^EventDecodeError: event is not JSON: .* failed_at_step=0 after=activation_start$/);
    });

    it('fails closed on an invalid outcome', async () => {
      const invalid = committed(await applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agentOf((() => 'done') as unknown as AgentHandler))));
      expect(onlyErrorRecord(invalid).detail).toBe('InvalidOutcomeError: the agent must return complete(...) or suspend(...) failed_at_step=0 after=activation_start');
    });
  });

  describe('a timed-out start (A06)', () => {
    it('commits an activation_timeout record with an empty detail and zero mutation', async () => {
      const state = await stateWithHistory();
      const timers = new ManualTimers();
      const agent = agentOf(async (ctx) => {
        ctx.memory.set('half', 'done');
        await ctx.callModel({ ...ping, messages: ['slow'] });
        return complete('never');
      });
      const element = eventElement(2, KEY, 'slow');
      const result = await timers.settle(applyElement(state, element, depsFor(agent, { timers, provider: ScriptedModelProvider.hanging() })));
      const next = committed(result);
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(state, element, 1, next.outbox));
      expect(next.outbox[0]?.subject).toBe(`agents.errors.${AGENT}.activation_timeout`);
      expect(onlyErrorRecord(next)).toMatchObject({ reason: 'activation_timeout', detail: '', eventTimeMs: T0 });
      expect(result.kind === 'commit' && result.report).toMatchObject({ status: 'timed_out', reason: 'activation_timeout', outputs: 0 });
    });

    it("uses the agent's own timeout over the activator default", async () => {
      const timers = new ManualTimers();
      const agent = agentOf(() => new Promise(() => undefined), { timeoutMs: 250 });
      await timers.settle(applyElement(undefined, eventElement(1, KEY, 'e'), depsFor(agent, { timers, activationTimeoutMs: 30_000 })));
      expect(timers.requestedDelays).toEqual([250]);
      expect(timers.monotonicMs()).toBe(250);
    });
  });

  describe('the activation clock (A07, A08)', () => {
    const failing = agentOf(async (ctx) => {
      ctx.emit('partial');
      await ctx.callModel(ping);
      throw new Error('kaboom');
    });
    const completing = agentOf(async (ctx) => {
      ctx.memory.set('last', ctx.eventText());
      await ctx.callModel(ping);
      return complete({ at: ctx.eventTimeMs });
    });

    it('stamps error records and outputs with the element event time whatever the processing clock reads', async () => {
      const element = eventElement(2, KEY, 'e', { eventTimeMs: T0 + 123 });
      for (const agent of [failing, completing]) {
        const early = new ManualTimers(0);
        const late = new ManualTimers(9_999_999_999);
        const a = committed(await applyElement(undefined, element, depsFor(agent, { timers: early })));
        const b = committed(await applyElement(undefined, element, depsFor(agent, { timers: late })));
        expect(hex(encodeActorDocument(b))).toBe(hex(encodeActorDocument(a)));
        for (const entry of a.outbox) expect(entry.headers).toContainEqual({ name: 'Agents-Event-Time', value: String(T0 + 123) });
      }
      expect(onlyErrorRecord(committed(await applyElement(undefined, element, depsFor(failing)))).eventTimeMs).toBe(T0 + 123);
    });

    it('reads neither the wall clock nor Math.random while applying an element', async () => {
      const now = vi.spyOn(Date, 'now');
      const random = vi.spyOn(Math, 'random');
      const state = await stateWithHistory();
      await applyElement(state, eventElement(2, KEY, 'e'), depsFor(failing));
      await applyElement(state, eventElement(2, KEY, 'e'), depsFor(completing));
      await applyElement(state, resultElement(2, KEY, 'ghost'), depsFor(completing));
      expect(now).not.toHaveBeenCalled();
      expect(random).not.toHaveBeenCalled();
    });

    it('replays the same failing element from the same state into byte-identical documents and outbox entries', async () => {
      const state = await stateWithHistory();
      const element = eventElement(2, KEY, 'boom', { headers: [{ name: 'traceparent', value: TRACEPARENT }] });
      const runs: ActorDocument[] = [];
      for (const start of [0, 77_777]) {
        const timers = new ManualTimers(start);
        runs.push(committed(await applyElement(state, element, depsFor(failing, { timers }))));
      }
      const [first, second] = runs;
      if (first === undefined || second === undefined) throw new Error('two runs expected');
      expect(hex(encodeActorDocument(second))).toBe(hex(encodeActorDocument(first)));
      expect(second.outbox.map((o) => [o.subject, o.msgId, hex(o.payload), o.headers])).toEqual(first.outbox.map((o) => [o.subject, o.msgId, hex(o.payload), o.headers]));
    });

    it('replays the same timed-out element into byte-identical records', async () => {
      const state = await stateWithHistory();
      const element = eventElement(2, KEY, 'slow');
      const outcomes: string[] = [];
      for (const start of [0, 5_000]) {
        const timers = new ManualTimers(start);
        const gate = deferred<void>();
        const agent = agentOf(async () => {
          await gate.promise;
          return complete('late');
        });
        outcomes.push(hex(encodeActorDocument(committed(await timers.settle(applyElement(state, element, depsFor(agent, { timers })))))));
        gate.resolve();
      }
      expect(outcomes[1]).toBe(outcomes[0]);
    });
  });

  describe('results, approvals and timers on a key with no continuation', () => {
    it('refuses a tool result as orphaned_result no_continuation:<intentId> and mutates nothing else', async () => {
      const state = await stateWithHistory();
      const handler = vi.fn(() => complete('x'));
      const element = resultElement(2, KEY, 'ghost', { eventTimeMs: T0 + 1 });
      const result = await applyElement(state, element, depsFor(agentOf(handler)));
      const next = committed(result);
      expect(handler).not.toHaveBeenCalled();
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(state, element, 1, next.outbox));
      expect(next.outbox[0]?.subject).toBe(`agents.errors.${AGENT}.orphaned_result`);
      expect(onlyErrorRecord(next)).toEqual({ agent: AGENT, entityKey: KEY_BYTES, reason: 'orphaned_result', detail: 'no_continuation:ghost', eventTimeMs: T0 + 1 });
      expect(result.kind === 'commit' && result.report).toEqual({ status: 'orphaned', seq: 1, reason: 'orphaned_result', outputs: 0 });
    });

    it('refuses an approval the same way', async () => {
      const state = await stateWithHistory();
      const element = approvalElement(2, KEY, 'approve-7');
      const next = committed(await applyElement(state, element, depsFor(agentOf(() => complete('x')))));
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(state, element, 1, next.outbox));
      expect(onlyErrorRecord(next)).toMatchObject({ reason: 'orphaned_result', detail: 'no_continuation:approve-7' });
    });

    it('refuses a result on a key that never committed, creating only the failure record', async () => {
      const next = committed(await applyElement(undefined, resultElement(4, KEY, 'ghost'), depsFor(agentOf(() => complete('x')))));
      const element = resultElement(4, KEY, 'ghost');
      expect(hex(encodeActorDocument(next))).toBe(failureOnly(emptyActorDocument(AGENT, KEY_BYTES), element, 1, next.outbox));
    });

    it('treats a timer firing as a noop and runs nothing', async () => {
      const state = await stateWithHistory();
      const handler = vi.fn(() => complete('x'));
      expect(await applyElement(state, timerElement(2, KEY), depsFor(agentOf(handler)))).toEqual({ kind: 'noop' });
      expect(handler).not.toHaveBeenCalled();
    });
  });
});
