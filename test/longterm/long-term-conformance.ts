/**
 * The long-term store contract (beam-agents L12, seed 000's seq guard, seed 004's lifecycle) as
 * one suite every `LongTermBackend` runs: `backends.test.ts` registers it for memory://, sqlite://,
 * redis:// (real Redis) and postgresql:// (real PostgreSQL). Time is an argument (`nowMs`), so
 * expiry is exact and takes no real time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLongTermRecord, LongTermUnavailable, type LongTermRecord } from '#core';
import { LongTermArgumentError, restore, supersede, UpsertVerdict, rowFromRecord, type LongTermBackend } from '#longterm';
import { exportedRowsOf, newEntity, record, T0, type OpenedBackend } from './long-term-fixtures.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const keysOf = (records: readonly LongTermRecord[]): string[] => records.map((r) => r.key);

/** Registers the contract for the backend `open` returns (opened once for the file, cleaned up after). */
export function longTermConformance(name: string, open: () => Promise<OpenedBackend>): void {
  describe(`LongTermBackend conformance: ${name}`, () => {
    let opened: OpenedBackend;
    let store: LongTermBackend;

    beforeAll(async () => {
      opened = await open();
      store = opened.backend;
    });
    afterAll(async () => {
      await opened?.cleanup();
    });

    it('loads what it saved, with every field, and nothing for a key never saved', async () => {
      const entity = newEntity();
      const saved = record(entity, 'profile', { value: new Uint8Array([0, 1, 2, 255]), confidence: 0.875, type: 'user_summary' });
      await store.upsert([saved]);
      expect(await store.load({ entityKey: entity, agent: 'support' }, 'profile', T0)).toEqual(saved);
      expect(await store.load({ entityKey: entity, agent: 'support' }, 'missing', T0)).toBeUndefined();
      expect(await store.load({ entityKey: entity, agent: 'billing' }, 'profile', T0)).toBeUndefined();
    });

    it('refuses invalid arguments before any I/O, even on a closed connection', async () => {
      const closed = await opened.reopen();
      if (closed !== store) await closed.close();
      const target = closed === store ? store : closed;
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      await expect(target.load(scope, '', T0)).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.upsert([record(entity, '')])).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.upsert([record(entity, 'k', { seq: -1 })])).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.search(scope, 'p', T0, { limit: 0 })).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.search(scope, 'p', T0, { limit: -3 })).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.load({ entityKey: new Uint8Array(0), agent: 'support' }, 'k', T0)).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.load({ entityKey: entity, agent: 'Not An Agent' }, 'k', T0)).rejects.toBeInstanceOf(LongTermArgumentError);
      await expect(target.sweepExpired(T0, 0)).rejects.toBeInstanceOf(LongTermArgumentError);
    });

    it('writes nothing of a batch that holds one invalid record', async () => {
      const entity = newEntity();
      await expect(store.upsert([record(entity, 'good'), record(entity, 'bad', { seq: -1 })])).rejects.toBeInstanceOf(LongTermArgumentError);
      expect(await store.load({ entityKey: entity, agent: 'support' }, 'good', T0)).toBeUndefined();
    });

    it('applies the seq guard: absent applies, lower is refused untouched, equal is accepted, higher overwrites', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const at5 = record(entity, 'k', { seq: 5, value: new Uint8Array([5]) });
      expect(await store.applyRows([rowFromRecord(at5)])).toEqual([UpsertVerdict.Applied]);

      const at4 = record(entity, 'k', { seq: 4, value: new Uint8Array([4]) });
      expect(await store.applyRows([rowFromRecord(at4)])).toEqual([UpsertVerdict.Stale]);
      expect(encodeLongTermRecord((await store.load(scope, 'k', T0)) as LongTermRecord)).toEqual(encodeLongTermRecord(at5));

      const at5again = record(entity, 'k', { seq: 5, value: new Uint8Array([55]) });
      expect(await store.applyRows([rowFromRecord(at5again)])).toEqual([UpsertVerdict.Applied]);
      expect(await store.load(scope, 'k', T0)).toEqual(at5again);

      const at9 = record(entity, 'k', { seq: 9, value: new Uint8Array([9]) });
      expect(await store.applyRows([rowFromRecord(at9)])).toEqual([UpsertVerdict.Applied]);
      expect(await store.load(scope, 'k', T0)).toEqual(at9);
    });

    it('converges a replayed flush onto the identical row', async () => {
      const entity = newEntity();
      const flush = [record(entity, 'case/1', { seq: 3 }), record(entity, 'case/2', { seq: 3 })];
      await store.upsert(flush);
      const first = await exportedRowsOf(store, entity);
      expect(await store.applyRows(flush.map(rowFromRecord))).toEqual([UpsertVerdict.Applied, UpsertVerdict.Applied]);
      expect(await exportedRowsOf(store, entity)).toEqual(first);
      expect(first.map(([, bytes]) => bytes)).toEqual(flush.map((r) => hex(encodeLongTermRecord(r))));
    });

    it('never lets a delayed duplicate of seq N regress a row at N+1', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const n = record(entity, 'summary', { seq: 7, value: new Uint8Array([7]) });
      const next = record(entity, 'summary', { seq: 8, value: new Uint8Array([8]) });
      await store.upsert([n]);
      await store.upsert([next]);
      expect(await store.applyRows([rowFromRecord(n)])).toEqual([UpsertVerdict.Stale]);
      expect(await store.load(scope, 'summary', T0)).toEqual(next);
    });

    it('ends at the highest seq whatever order concurrent writers land in', async () => {
      const entity = newEntity();
      const writers = await Promise.all([opened.reopen(), opened.reopen()]);
      const seqs = [...Array(24).keys()].map((i) => (i * 7) % 24); // a fixed shuffle of 0..23
      await Promise.all(seqs.map((seq, i) => (writers[i % 2] as LongTermBackend).upsert([record(entity, 'race', { seq, value: new Uint8Array([seq]) })])));
      expect((await store.load({ entityKey: entity, agent: 'support' }, 'race', T0))?.seq).toBe(23);
    });

    it('scans a prefix in key order (UTF-8 bytes), bounded, scoped to one entity and agent', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const keys = ['case/b', 'case/a', 'case/é', 'case/😀', 'case/\uffee', 'case/Z', 'case0', 'cas', 'other'];
      await store.upsert(keys.map((key) => record(entity, key)));
      await store.upsert([record(newEntity(), 'case/a'), record(entity, 'case/c', { agent: 'billing' })]);
      expect(keysOf(await store.search(scope, 'case/', T0, { limit: 100 }))).toEqual(['case/Z', 'case/a', 'case/b', 'case/é', 'case/\uffee', 'case/😀']);
      expect(keysOf(await store.search(scope, 'case/', T0, { limit: 2 }))).toEqual(['case/Z', 'case/a']);
      expect(keysOf(await store.search(scope, '', T0, { limit: 100 }))).toEqual([...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      expect(await store.search(scope, 'nothing/', T0, { limit: 5 })).toEqual([]);
      const [full] = await store.search(scope, 'other', T0, { limit: 1 });
      expect(full).toEqual(record(entity, 'other'));
    });

    it('treats % and _ in a prefix as literal characters', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      await store.upsert(['a%1', 'a_1', 'aX1', 'a\\1', 'a%%'].map((key) => record(entity, key)));
      expect(keysOf(await store.search(scope, 'a%', T0, { limit: 10 }))).toEqual(['a%%', 'a%1']);
      expect(keysOf(await store.search(scope, 'a_', T0, { limit: 10 }))).toEqual(['a_1']);
      expect(keysOf(await store.search(scope, 'a\\', T0, { limit: 10 }))).toEqual(['a\\1']);
    });

    it('never returns an expired record, before or after the sweep deleted it', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      await store.upsert([record(entity, 'turn/1', { type: 'turn', expiresAtMs: T0 + 1_000 }), record(entity, 'turn/2', { type: 'turn', expiresAtMs: T0 + 5_000 })]);
      expect((await store.load(scope, 'turn/1', T0 + 999))?.key).toBe('turn/1');
      expect(await store.load(scope, 'turn/1', T0 + 1_000)).toBeUndefined();
      expect(keysOf(await store.search(scope, 'turn/', T0 + 1_000, { limit: 10, includeSuperseded: true }))).toEqual(['turn/2']);
      expect(await store.history(scope, 'turn/1', T0 + 1_000)).toEqual([]);
    });

    it('deletes expired rows in the background sweep, in bounded batches, and only those', async () => {
      const entity = newEntity();
      const sweepAt = T0 + 10_000;
      await store.upsert([
        record(entity, 'old/1', { expiresAtMs: T0 + 1 }),
        record(entity, 'old/2', { expiresAtMs: T0 + 2 }),
        record(entity, 'old/3', { expiresAtMs: sweepAt }),
        record(entity, 'live', { expiresAtMs: sweepAt + 1 }),
        record(entity, 'forever'),
      ]);
      let swept = 0;
      for (let round = 0; round < 50; round += 1) {
        const deleted = await store.sweepExpired(sweepAt, 1);
        expect(deleted).toBeLessThanOrEqual(1);
        swept += deleted;
        if (deleted === 0) break;
      }
      expect(swept).toBeGreaterThanOrEqual(3);
      expect((await exportedRowsOf(store, entity)).map(([key]) => key)).toEqual(['support/forever', 'support/live']);
    });

    it('filters superseded records by default, shows them on request, and restores them', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const old = record(entity, 'fact/runtime-8h', { seq: 2 });
      await store.upsert([old, record(entity, 'fact/runtime-12h', { seq: 3 })]);
      await store.upsert([supersede(old, 'fact/runtime-12h', T0 + 50, { seq: 3 })]);
      expect(keysOf(await store.search(scope, 'fact/', T0, { limit: 10 }))).toEqual(['fact/runtime-12h']);
      expect(keysOf(await store.search(scope, 'fact/', T0, { limit: 10, includeSuperseded: true }))).toEqual(['fact/runtime-12h', 'fact/runtime-8h']);
      expect((await store.load(scope, 'fact/runtime-8h', T0))?.supersededBy).toBe('fact/runtime-12h');
      expect(await store.applyRows([rowFromRecord(old)])).toEqual([UpsertVerdict.Stale]);

      await store.upsert([restore((await store.load(scope, 'fact/runtime-8h', T0)) as LongTermRecord)]);
      expect(keysOf(await store.search(scope, 'fact/', T0, { limit: 10 }))).toEqual(['fact/runtime-12h', 'fact/runtime-8h']);
    });

    it('returns the supersede chain through any of its records as history', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const a = record(entity, 'belief/a');
      const b = record(entity, 'belief/b');
      const c = record(entity, 'belief/c');
      const d = record(entity, 'belief/d');
      await store.upsert([supersede(a, 'belief/b', T0 + 10), supersede(b, 'belief/c', T0 + 20), supersede(d, 'belief/c', T0 + 30), c, record(entity, 'unrelated')]);
      const expected = ['belief/a', 'belief/b', 'belief/d', 'belief/c'];
      expect(keysOf(await store.history(scope, 'belief/c', T0))).toEqual(expected);
      expect(keysOf(await store.history(scope, 'belief/b', T0))).toEqual(['belief/a', 'belief/b', 'belief/c']);
      expect(keysOf(await store.history(scope, 'belief/a', T0))).toEqual(['belief/a', 'belief/b', 'belief/c']);
      expect(keysOf(await store.history(scope, 'unrelated', T0))).toEqual(['unrelated']);
      expect(await store.history(scope, 'absent', T0)).toEqual([]);
    });

    it('erases every row of one entity across agents and leaves other entities intact', async () => {
      const erased = newEntity();
      const kept = newEntity();
      await store.upsert([record(erased, 'a'), record(erased, 'b', { expiresAtMs: T0 + 99_999_999 }), record(erased, 'c', { agent: 'billing', supersededBy: 'a' }), record(kept, 'a')]);
      expect(await store.eraseEntity(erased)).toBe(3);
      expect(await exportedRowsOf(store, erased)).toEqual([]);
      expect(await store.search({ entityKey: erased, agent: 'billing' }, '', T0, { limit: 10, includeSuperseded: true })).toEqual([]);
      expect(await store.load({ entityKey: kept, agent: 'support' }, 'a', T0)).toEqual(record(kept, 'a'));
      expect(await store.eraseEntity(erased)).toBe(0);
    });

    it('exports rows with the record bytes verbatim and imports them through the guard', async () => {
      const entity = newEntity();
      const records = [record(entity, 'x', { seq: 4 }), record(entity, 'y', { seq: 4, agent: 'billing' })];
      await store.upsert(records);
      const rows: { bytes: Uint8Array }[] = [];
      for await (const batch of store.exportRows(1)) rows.push(...batch.filter((row) => hex(row.entityKey) === hex(entity)));
      expect(rows.map((row) => hex(row.bytes)).sort()).toEqual(records.map((r) => hex(encodeLongTermRecord(r))).sort());
      expect(await store.importRows([rowFromRecord({ ...(records[0] as LongTermRecord), seq: 3 })])).toBe(0);
    });

    it('rejects with LongTermUnavailable, not a driver error, once closed', async () => {
      const other = await opened.reopen();
      if (other === store) return; // memory:// has one instance: closing it would end the suite
      await other.close();
      await expect(other.load({ entityKey: newEntity(), agent: 'support' }, 'k', T0)).rejects.toBeInstanceOf(LongTermUnavailable);
    });
  });
}
