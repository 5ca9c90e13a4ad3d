// Compaction over many committed activations, and summarizing under a commit retry (beam-agents
// L08/L09 and D04), driven through the real per-message protocol with in-memory ports.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { MEMORY_HARD_CAP_BYTES } from '../memory/memory-limits.js';
import { ActorHarness } from '../testing/actor-runtime-harness.js';
import { InMemoryStateStore } from '../testing/in-memory-state-store.js';
import { ScriptedModelProvider } from '../testing/scripted-model-provider.js';
import { encodeActorDocument } from './state-codec.js';

const KIB = 1024;
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Writes one 40 KiB note per event; keeps a protected profile. */
const notebook: AgentDefinition = {
  name: 'notebook',
  handler(ctx) {
    if (!ctx.memory.has('__profile')) ctx.memory.set('__profile', 'p'.repeat(4 * KIB));
    ctx.memory.set(`note-${String(ctx.seq).padStart(4, '0')}`, 'n'.repeat(40 * KIB));
    return { kind: 'complete' };
  },
};

describe('compaction across activations', () => {
  it('keeps a long-lived key under the hard cap, never evicts protected entries, and evicts the same set on replay', async () => {
    const run = async (): Promise<string[]> => {
      const h = new ActorHarness({ agents: [notebook] });
      for (let i = 0; i < 120; i += 1) {
        await h.send('notebook', 'k', `e${i}`);
        const doc = h.doc('notebook', 'k');
        expect(doc?.memory.totalBytes ?? 0).toBeLessThanOrEqual(MEMORY_HARD_CAP_BYTES);
        expect(doc?.memory.entries.some((e) => e.key === '__profile')).toBe(true);
      }
      expect(h.errors('notebook')).toEqual([]);
      return h.doc('notebook', 'k')?.memory.entries.map((e) => e.key) ?? [];
    };
    const first = await run();
    expect(first).toContain('note-0119');
    expect(first).not.toContain('note-0000');
    expect(await run()).toEqual(first);
  });

  it('fails the write with MemoryOverflow under the strict contract (compactor: null)', async () => {
    const strict: AgentDefinition = { ...notebook, name: 'strict', memory: { compactor: null } };
    const h = new ActorHarness({ agents: [strict], maxDocumentBytes: 4 * MEMORY_HARD_CAP_BYTES });
    for (let i = 0; i < 30; i += 1) await h.send('strict', 'k', `e${i}`);
    expect(h.errors('strict').map((e) => e.detail.split(':')[0])).toContain('MemoryOverflow');
    expect(h.doc('strict', 'k')?.memory.totalBytes ?? 0).toBeLessThanOrEqual(MEMORY_HARD_CAP_BYTES);
  });
});

describe('summarizing compaction under a commit retry (D04)', () => {
  /** Appends each event to a ring; folds it when memory passes 2 KiB. */
  const chronicle: AgentDefinition = {
    name: 'chronicle',
    memory: {
      summarize: {
        sourceKeys: ['history'],
        keepRecent: 2,
        triggerBytes: 2 * KIB,
        buildRequest: ({ previousSummary, items }) => ({ model: 'summarizer', messages: [{ role: 'user', content: `${previousSummary ?? ''}+${items.join('/')}` }] }),
      },
    },
    handler(ctx) {
      ctx.memory.append('history', ctx.eventText().repeat(100), { maxItems: 1000 });
      return { kind: 'complete' };
    },
  };

  it('folds with one provider call across a failed commit and its retry, to byte-identical memory', async () => {
    const clean = new ActorHarness({ agents: [chronicle], provider: ScriptedModelProvider.replying('SUMMARY') });
    const store = new InMemoryStateStore();
    const faulted = new ActorHarness({ agents: [chronicle], provider: ScriptedModelProvider.replying('SUMMARY'), store });
    const calls = (h: ActorHarness): number => (h.provider as ScriptedModelProvider).calls;
    for (const h of [clean, faulted]) {
      for (let i = 0; i < 6; i += 1) await h.send('chronicle', 'k', `event-${i}-`);
    }
    const before = calls(clean);
    expect(calls(faulted)).toBe(before);
    // The next event folds again (memory is over the trigger), and its first commit fails.
    store.failCommit(store.commits + 1, 'before-write');
    await clean.send('chronicle', 'k', 'event-6-');
    await faulted.send('chronicle', 'k', 'event-6-');
    expect(calls(clean)).toBe(before + 1);
    expect(calls(faulted)).toBe(before + 1);
    const memory = (h: ActorHarness): string => hex(encodeActorDocument({ ...h.doc('chronicle', 'k')!, outbox: [], ownerEpoch: 0, lastAppliedSeq: 0 }));
    expect(memory(faulted)).toBe(memory(clean));
    expect(clean.doc('chronicle', 'k')?.memory.entries.find((e) => e.key === 'summary')).toBeDefined();
  });
});
