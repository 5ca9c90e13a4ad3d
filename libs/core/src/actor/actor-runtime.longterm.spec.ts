// The long-term flush inside the per-message protocol (beam-agents L11, D08): saves flush before
// the commit, a failed activation flushes nothing, a failed flush fails closed, and a commit that
// fails after its flush converges on identical rows with no extra model call.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { InMemoryLongTermStore } from '../testing/in-memory-long-term-store.js';
import { InMemoryStateStore } from '../testing/in-memory-state-store.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { encodeLongTermRecord } from '../longterm/long-term-record.js';

const scope = { entityKey: new TextEncoder().encode('k'), agent: 'scribe' };
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Summarizes each event through the model and saves it; "boom" fails after saving. */
const scribe: AgentDefinition = {
  name: 'scribe',
  async handler(ctx) {
    const summary = await ctx.callModel({ model: 'm', messages: [{ role: 'user', content: ctx.eventText() }] });
    ctx.memory.longterm.save(`case/${ctx.seq}`, summary.text, { type: 'episodic' });
    if (ctx.eventText() === 'boom') throw new Error('after saving');
    return { kind: 'complete', output: summary.text };
  },
};

function harness(longterm: InMemoryLongTermStore, store = new InMemoryStateStore(), provider = ScriptedModelProvider.replying('summary')): ActorHarness {
  return new ActorHarness({ agents: [scribe], store, provider, longterm: { store: longterm } });
}

describe('the long-term flush', () => {
  it('flushes staged saves before the commit, once', async () => {
    const longterm = new InMemoryLongTermStore();
    const h = harness(longterm);
    await h.send('scribe', 'k', 'e1');
    expect(longterm.upsertCalls).toHaveLength(1);
    expect(longterm.row(scope, 'case/0')).toMatchObject({ seq: 0, type: 'episodic' });
    expect(h.outputs('scribe', 'k')).toEqual(['summary']);
  });

  it('flushes nothing for a failed activation', async () => {
    const longterm = new InMemoryLongTermStore();
    const h = harness(longterm);
    await h.send('scribe', 'k', 'boom');
    expect(longterm.upsertCalls).toEqual([]);
    expect(h.errors('scribe').map((e) => e.reason)).toEqual(['activation_error']);
  });

  it('fails the activation closed when the flush fails, committing nothing but the record', async () => {
    const longterm = new InMemoryLongTermStore().failNextUpserts(1);
    const h = harness(longterm);
    await h.send('scribe', 'k', 'e1');
    expect(h.errors('scribe')[0]?.detail).toMatch(/^LongTermFlushFailed: injected long-term outage/);
    expect(h.doc('scribe', 'k')?.seq).toBe(0);
    expect(h.outputs('scribe', 'k')).toEqual([]);
    expect(longterm.size).toBe(0);
  });

  it('converges on byte-identical rows when the commit fails after the flush (D08), with one model call', async () => {
    const cleanStore = new InMemoryLongTermStore();
    const clean = harness(cleanStore);
    await clean.send('scribe', 'k', 'e1');

    const longterm = new InMemoryLongTermStore();
    const state = new InMemoryStateStore().failCommit(1, 'before-write');
    const provider = ScriptedModelProvider.replying('summary');
    const faulted = harness(longterm, state, provider);
    await faulted.send('scribe', 'k', 'e1');
    expect(provider.calls).toBe(1);
    expect(longterm.upsertCalls).toHaveLength(2);
    expect(longterm.upsertCalls[0]?.map(encodeLongTermRecord).map(hex)).toEqual(longterm.upsertCalls[1]?.map(encodeLongTermRecord).map(hex));
    expect(hex(encodeLongTermRecord(longterm.row(scope, 'case/0')!))).toBe(hex(encodeLongTermRecord(cleanStore.row(scope, 'case/0')!)));
  });

  it('never lets a delayed flush of an older seq regress a newer row', async () => {
    const longterm = new InMemoryLongTermStore();
    const h = harness(longterm);
    await h.send('scribe', 'k', 'e1');
    const first = longterm.upsertCalls[0] ?? [];
    const newer = first.map((r) => ({ ...r, seq: 5, value: new TextEncoder().encode('newer') }));
    await longterm.upsert(newer);
    await longterm.upsert(first);
    expect(new TextDecoder().decode(longterm.row(scope, 'case/0')?.value)).toBe('newer');
  });

  it('names the missing configuration when an agent uses the tier without one', async () => {
    const h = new ActorHarness({ agents: [scribe] });
    await h.send('scribe', 'k', 'e1');
    expect(h.errors('scribe')[0]?.detail).toMatch(/LongTermNotConfigured: .*longterm\.uri/);
  });
});
