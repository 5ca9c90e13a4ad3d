// The long-term view an activation gets: staging without I/O, read-your-writes, retention per
// type and reversible supersede (beam-agents L10, seed 004); pure, over an in-memory store.
import { describe, expect, it } from 'vitest';
import { InMemoryLongTermStore } from '../testing/in-memory-long-term-store.js';
import { StagedLongTerm } from './staged-long-term.js';

const scope = { entityKey: new TextEncoder().encode('user-1'), agent: 'assistant' };
const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

async function seeded(): Promise<InMemoryLongTermStore> {
  const store = new InMemoryLongTermStore();
  const writer = new StagedLongTerm({ store, scope, seq: 1, nowMs: T0 });
  writer.save('case/a', 'A');
  writer.save('case/b', 'B');
  writer.save('note', 'N');
  await store.upsert(writer.upserts);
  return store;
}

describe('StagedLongTerm', () => {
  it('stages saves without I/O, stamped with the activation seq and event time', () => {
    const store = new InMemoryLongTermStore();
    const lt = new StagedLongTerm({ store, scope, seq: 7, nowMs: T0 });
    lt.save('profile', 'v1');
    lt.save('profile', 'v2');
    expect(store.upsertCalls).toEqual([]);
    expect(lt.upserts).toHaveLength(1);
    expect(lt.upserts[0]).toMatchObject({ key: 'profile', seq: 7, updatedAtMs: T0, agent: 'assistant', type: 'fact', expiresAtMs: 0 });
    expect(new TextDecoder().decode(lt.upserts[0]?.value)).toBe('v2');
  });

  it('lets the activation read its own staged writes first, in load and in search', async () => {
    const store = await seeded();
    const lt = new StagedLongTerm({ store, scope, seq: 2, nowMs: T0 });
    lt.save('case/b', 'B2');
    lt.save('case/c', 'C');
    expect((await lt.load('case/b'))?.text).toBe('B2');
    expect((await lt.search('case/', { limit: 10 })).map((e) => `${e.key}=${e.text}`)).toEqual(['case/a=A', 'case/b=B2', 'case/c=C']);
    expect((await lt.search('case/', { limit: 2 })).map((e) => e.key)).toEqual(['case/a', 'case/b']);
  });

  it('applies retention per type (turns expire after 30 days) and never returns an expired record', async () => {
    const store = new InMemoryLongTermStore();
    const writer = new StagedLongTerm({ store, scope, seq: 1, nowMs: T0 });
    writer.save('turn/1', 'hi', { type: 'turn' });
    writer.save('fact/1', 'likes tea', { type: 'fact' });
    writer.save('short', 'x', { ttlMs: 1_000 });
    expect(writer.upserts.find((r) => r.key === 'turn/1')?.expiresAtMs).toBe(T0 + 30 * DAY);
    await store.upsert(writer.upserts);
    const later = new StagedLongTerm({ store, scope, seq: 2, nowMs: T0 + 31 * DAY });
    expect(await later.load('turn/1')).toBeUndefined();
    expect(await later.load('short')).toBeUndefined();
    expect((await later.load('fact/1'))?.text).toBe('likes tea');
  });

  it('honours operator retention overrides by type', () => {
    const lt = new StagedLongTerm({ store: new InMemoryLongTermStore(), scope, seq: 1, nowMs: T0, retentionMs: { turn: DAY, audit_note: 2 * DAY } });
    lt.save('t', 'x', { type: 'turn' });
    lt.save('n', 'x', { type: 'audit_note' });
    expect(lt.upserts.map((r) => r.expiresAtMs)).toEqual([T0 + 2 * DAY, T0 + DAY]);
  });

  it('supersedes reversibly: the retired record is filtered unless asked for, and restore brings it back', async () => {
    const store = await seeded();
    const lt = new StagedLongTerm({ store, scope, seq: 2, nowMs: T0 + 5 });
    lt.save('case/a2', 'A, corrected');
    await lt.supersede('case/a', 'case/a2');
    expect(await lt.load('case/a')).toBeUndefined();
    expect((await lt.load('case/a', { includeSuperseded: true }))?.supersededBy).toBe('case/a2');
    expect((await lt.search('case/', { limit: 10 })).map((e) => e.key)).toEqual(['case/a2', 'case/b']);
    await store.upsert(lt.upserts);
    const undo = new StagedLongTerm({ store, scope, seq: 3, nowMs: T0 + 6 });
    await undo.restore('case/a');
    expect((await undo.load('case/a'))?.text).toBe('A');
  });

  it('refuses bad arguments before any I/O', async () => {
    const lt = new StagedLongTerm({ store: new InMemoryLongTermStore(), scope, seq: 1, nowMs: T0 });
    expect(() => lt.save('', 'x')).toThrow(/non-empty/);
    expect(() => lt.save('k', 'x', { type: 'Bad Type' })).toThrow(/memory type/);
    expect(() => lt.save('k', 'x', { confidence: 2 })).toThrow(/confidence/);
    await expect(lt.search('x', { limit: 0 })).rejects.toThrow(RangeError);
    await expect(lt.supersede('missing', 'other')).rejects.toThrow(/no long-term record/);
  });
});
