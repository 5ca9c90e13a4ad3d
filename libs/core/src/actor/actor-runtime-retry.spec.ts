// Retry determinism (D01/D02 analogue for the fast path) is a property of the runtime's commit loop, so it is gated here with an injected commit fault and a provider that answers differently on every call: any extra provider call would change the committed bytes.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { InjectedStoreFault, InMemoryStateStore, type CommitFault } from '../testing/in-memory-state-store.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import type { OutboxEntryDoc } from './actor-document.js';
import type { ProcessOutcome } from './actor-runtime.js';

const utf8 = new TextEncoder();
const hex = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('hex');
const wire = (entries: readonly OutboxEntryDoc[]): unknown[] => entries.map((e) => [e.subject, e.msgId, hex(e.payload), e.headers]);

/** Asks the model about each event, remembers the answer, emits, and completes with `answer#seq`. */
const oracle: AgentDefinition = {
  name: 'oracle',
  handler: async (ctx) => {
    const answer = await ctx.callModel({ model: 'fake-1', messages: [{ role: 'user', content: ctx.eventText() }] });
    ctx.memory.append('answers', answer.text);
    ctx.emit({ asked: ctx.eventText() });
    return { kind: 'complete', output: `${answer.text}#${ctx.seq}` };
  },
};

/** A provider whose every answer is different, so a second call for the same request would show. */
const drifting = (): ScriptedModelProvider => new ScriptedModelProvider((_request, call) => utf8.encode(`answer-${call}`));

interface Run {
  readonly h: ActorHarness;
  readonly provider: ScriptedModelProvider;
  readonly outcomes: ProcessOutcome[];
}

async function run(store: InMemoryStateStore, events: readonly string[] = ['a', 'b', 'c']): Promise<Run> {
  const provider = drifting();
  const h = new ActorHarness({ agents: [oracle], provider, store });
  const outcomes: ProcessOutcome[] = [];
  for (const event of events) outcomes.push((await h.send('oracle', 'k', event)).outcome);
  return { h, provider, outcomes };
}

describe('ActorRuntime retry determinism', () => {
  describe.each<[CommitFault, ProcessOutcome['kind']]>([
    ['before-write', 'applied'],
    ['after-write', 'duplicate'],
  ])('when the commit of an activation fails %s', (fault, retriedOutcome) => {
    it('calls the provider once for it and commits and publishes exactly the bytes of a run without the fault', async () => {
      const baseline = await run(new InMemoryStateStore());
      const faulted = await run(new InMemoryStateStore().failCommit(2, fault));

      expect(faulted.provider.calls).toBe(3);
      expect(baseline.provider.calls).toBe(3);
      expect(faulted.h.store.writes.map((w) => hex(w.bytes))).toEqual(baseline.h.store.writes.map((w) => hex(w.bytes)));
      expect(hex(faulted.h.bytes('oracle', 'k'))).toBe(hex(baseline.h.bytes('oracle', 'k')));
      expect(wire(faulted.h.stored)).toEqual(wire(baseline.h.stored));
      expect(faulted.h.outputs('oracle', 'k')).toEqual(['{"asked":"a"}', 'answer-0#0', '{"asked":"b"}', 'answer-1#1', '{"asked":"c"}', 'answer-2#2']);

      const [retry] = faulted.h.observer.of('retrying');
      expect(retry?.error).toBeInstanceOf(InjectedStoreFault);
      expect(faulted.h.observer.of('retrying')).toHaveLength(1);
      expect(faulted.outcomes.map((o) => o.kind)).toEqual(['applied', retriedOutcome, 'applied']);
    });
  });

  it('serves the retried attempt from the attempt memo: zero provider calls, one cache hit', async () => {
    const faulted = await run(new InMemoryStateStore().failCommit(2, 'before-write'));
    const retried = faulted.outcomes[1];
    expect(retried?.kind === 'applied' && retried.report.tally).toMatchObject({ providerCalls: 0, cacheHits: 1 });
    expect(faulted.h.store.commits).toBe(4);
  });

  it('reports each model call to the observer as it is answered: the first attempt misses, its retry hits the memo', async () => {
    const faulted = await run(new InMemoryStateStore().failCommit(2, 'before-write'), ['a', 'b']);
    const calls = faulted.h.observer.of('modelCall').map((n) => ({ stateKey: n.stateKey, step: n.call.step, model: n.call.model, cacheHit: n.call.cacheHit }));
    const stateKey = ActorHarness.stateKey('oracle', 'k');
    expect(calls).toEqual([
      { stateKey, step: 0, model: 'fake-1', cacheHit: false },
      { stateKey, step: 0, model: 'fake-1', cacheHit: false },
      { stateKey, step: 0, model: 'fake-1', cacheHit: true },
    ]);
    expect(faulted.h.observer.of('modelCall').every((n) => n.call.durationMs >= 0)).toBe(true);
  });

  it('takes the duplicate path after an ambiguous commit and publishes the committed outbox once more', async () => {
    const faulted = await run(new InMemoryStateStore().failCommit(1, 'after-write'), ['a']);
    expect(faulted.outcomes).toEqual([{ kind: 'duplicate' }]);
    expect(faulted.h.store.commits).toBe(1);
    expect(faulted.h.observer.of('duplicate')).toHaveLength(1);
    const committed = faulted.h.doc('oracle', 'k')?.outbox ?? [];
    expect(committed).toHaveLength(2);
    expect(faulted.h.publisher.batches.map(wire)).toEqual([wire(committed)]);
  });

  it('adds no provider call when a CAS conflict forces a re-run of the same seq', async () => {
    const provider = drifting();
    const h = new ActorHarness({ agents: [oracle], provider });
    await h.send('oracle', 'k', 'a');
    const stateKey = ActorHarness.stateKey('oracle', 'k');
    h.store.put(stateKey, h.store.bytes(stateKey) ?? new Uint8Array());
    await h.send('oracle', 'k', 'b');
    expect(h.observer.of('conflict')).toHaveLength(1);
    expect(provider.calls).toBe(2);
    expect(h.outputs('oracle', 'k')).toEqual(['{"asked":"a"}', 'answer-0#0', '{"asked":"b"}', 'answer-1#1']);
  });

  it('pays the provider again for the same request at a new seq (the memo and cache are seq-scoped)', async () => {
    const faulted = await run(new InMemoryStateStore().failCommit(1, 'before-write'), ['same', 'same']);
    expect(faulted.provider.calls).toBe(2);
    expect(faulted.h.outputs('oracle', 'k')).toEqual(['{"asked":"same"}', 'answer-0#0', '{"asked":"same"}', 'answer-1#1']);
  });
});
