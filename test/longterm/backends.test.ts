// Layer 3: the long-term store contract against every backend for real — the in-process map, an
// SQLite file, the machine's Redis (own key prefix) and PostgreSQL (own schema) — through one
// shared suite, then what only several backends together can show: byte-identical rows
// everywhere and verbatim copies between them.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeLongTermRecord } from '#core';
import { copyLongTerm, copyRows, openLongTermBackend } from '#longterm';
import { longTermConformance } from './long-term-conformance.js';
import { BACKENDS, exportedRowsOf, newEntity, openIsolated, record, T0, type OpenedBackend } from './long-term-fixtures.js';

for (const name of BACKENDS) longTermConformance(name, () => openIsolated(name));

describe('long-term backends together', () => {
  const opened: OpenedBackend[] = [];

  beforeAll(async () => {
    for (const name of BACKENDS) opened.push(await openIsolated(name));
  });
  afterAll(async () => {
    for (const o of opened) await o.cleanup();
  });

  it('store byte-identical records in every backend', async () => {
    const entity = newEntity();
    const records = [
      record(entity, 'fact/a', { seq: 12, confidence: 0.25, expiresAtMs: T0 + 86_400_000, type: 'episodic' }),
      record(entity, 'fact/b', { seq: 12, supersededBy: 'fact/a', supersededAtMs: T0 + 5 }),
      record(entity, 'procedural/ü', { agent: 'billing', value: new Uint8Array(4096).fill(7) }),
    ];
    const expected = records.map((r) => [`${r.agent}/${r.key}`, Buffer.from(encodeLongTermRecord(r)).toString('hex')]).sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    for (const { name, backend } of opened) {
      await backend.upsert(records);
      expect({ name, rows: await exportedRowsOf(backend, entity) }).toEqual({ name, rows: expected });
      const loaded = await backend.load({ entityKey: entity, agent: 'billing' }, 'procedural/ü', T0);
      expect({ name, bytes: Buffer.from(encodeLongTermRecord(loaded as never)).toString('hex') }).toEqual({ name, bytes: expected[0]?.[1] });
    }
  });

  it('copy every row verbatim from each backend to the next', async () => {
    const entity = newEntity();
    const [first] = opened;
    await first?.backend.upsert([record(entity, 'a', { seq: 3 }), record(entity, 'b', { seq: 4, expiresAtMs: T0 + 1 }), record(entity, 'c', { agent: 'billing' })]);
    const source = await exportedRowsOf(first?.backend as never, entity);
    for (let i = 1; i < opened.length; i += 1) {
      const from = opened[i - 1] as OpenedBackend;
      const to = opened[i] as OpenedBackend;
      const report = await copyRows(from.backend, to.backend, { batchSize: 2 });
      expect(report.read).toBeGreaterThanOrEqual(3);
      expect({ to: to.name, rows: await exportedRowsOf(to.backend, entity) }).toEqual({ to: to.name, rows: source });
    }
  });

  it('copy between two URIs with copyLongTerm, re-runnable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ltm-copy-'));
    try {
      const fromUri = `sqlite://${join(dir, 'from.db')}`;
      const toUri = `sqlite://${join(dir, 'to.db')}`;
      const entity = newEntity();
      const from = await openLongTermBackend(fromUri);
      await from.upsert([record(entity, 'a'), record(entity, 'b'), record(entity, 'c', { agent: 'billing' })]);
      await from.close();
      expect(await copyLongTerm(fromUri, toUri)).toEqual({ read: 3, applied: 3 });
      expect(await copyLongTerm(fromUri, toUri)).toEqual({ read: 3, applied: 3 });
      const [source, target] = [await openLongTermBackend(fromUri), await openLongTermBackend(toUri)];
      expect(await exportedRowsOf(target, entity)).toEqual(await exportedRowsOf(source, entity));
      await Promise.all([source.close(), target.close()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keep PostgreSQL migrations idempotent across concurrent opens', async () => {
    const schema = `ltm_test_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const uri = `postgresql://postgres@127.0.0.1:5432/test?schema=${schema}`;
    const backends = await Promise.all([openLongTermBackend(uri), openLongTermBackend(uri), openLongTermBackend(uri)]);
    const entity = newEntity();
    await backends[0]?.upsert([record(entity, 'k')]);
    expect(await backends[2]?.load({ entityKey: entity, agent: 'support' }, 'k', T0)).toEqual(record(entity, 'k'));
    for (const b of backends) await b.close();
    const { dropPostgresSchema } = await import('./long-term-fixtures.js');
    await dropPostgresSchema(schema);
  });
});
