// Layer 3: bigtable:// and firestore:// against Google's own emulators (started here on free
// loopback ports, stopped after): the shared long-term conformance suite, then what only these
// layouts can get wrong — characters that mean something in a row key or a regex, and erasure
// read back from the emulator's raw data (every cell / every field), finding no byte of the erased
// entity key while other entities stay intact.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LongTermRecord } from '#core';
import { supersede, type LongTermBackend } from '#longterm';
import { startGoogleEmulator, type GoogleEmulatorHandle, type GoogleEmulatorKind } from '../harness/index.js';
import { longTermConformance } from './long-term-conformance.js';
import { newEntity, openReopenable, record, T0, type OpenedBackend } from './long-term-fixtures.js';

const KINDS: readonly GoogleEmulatorKind[] = ['bigtable', 'firestore'];
const emulators = new Map<GoogleEmulatorKind, Promise<GoogleEmulatorHandle>>();
const keysOf = (records: readonly LongTermRecord[]): string[] => records.map((r) => r.key);

/** The emulator of `kind`, started once for the file; the client finds it through its env variable. */
function emulator(kind: GoogleEmulatorKind): Promise<GoogleEmulatorHandle> {
  let started = emulators.get(kind);
  if (started === undefined) {
    started = startGoogleEmulator(kind).then((handle) => {
      process.env[handle.envName] = handle.host;
      return handle;
    });
    emulators.set(kind, started);
  }
  return started;
}

/** A backend on a table / collection of its own. */
async function openGoogle(kind: GoogleEmulatorKind): Promise<OpenedBackend> {
  await emulator(kind);
  const id = randomUUID().replaceAll('-', '').slice(0, 16);
  const uri = kind === 'bigtable' ? `bigtable://test-project/test-instance/ltm_${id}` : `firestore://test-project/(default)?collection=ltm_${id}`;
  return openReopenable(kind, uri);
}

afterAll(async () => {
  for (const started of emulators.values()) await (await started).stop();
});

for (const kind of KINDS) longTermConformance(kind, () => openGoogle(kind));

/** Every stored byte string of the backend's table / collection, read with the raw client. */
async function rawData(opened: OpenedBackend): Promise<Buffer[]> {
  if (opened.name === 'bigtable') {
    const { Bigtable } = await import('@google-cloud/bigtable');
    const [, project, instance, table] = /^bigtable:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(opened.uri) as RegExpExecArray;
    const client = new Bigtable({ projectId: project, metricsEnabled: false });
    try {
      // Every row, every cell, every version: nothing filtered.
      const [rows] = await client.instance(instance as string).table(table as string).getRows({ decode: false });
      return rows.flatMap((row) => [
        Buffer.from(row.id),
        ...Object.values(row.data as Record<string, Record<string, { value: Buffer | number }[]>>).flatMap((family) =>
          Object.entries(family).flatMap(([qualifier, cells]) => [Buffer.from(qualifier), ...cells.map((cell) => (typeof cell.value === 'number' ? Buffer.from(String(cell.value)) : Buffer.from(cell.value)))]),
        ),
      ]);
    } finally {
      await client.close();
    }
  }
  const { Firestore } = await import('@google-cloud/firestore');
  const collection = new URL(opened.uri.replace('(default)', 'default')).searchParams.get('collection') as string;
  const db = new Firestore({ projectId: 'test-project' });
  try {
    const out: Buffer[] = [];
    for (const ref of await db.listCollections()) {
      const { docs } = await ref.get();
      for (const doc of docs) {
        out.push(Buffer.from(doc.id));
        for (const [field, value] of Object.entries(doc.data())) out.push(Buffer.from(field), Buffer.isBuffer(value) ? value : Buffer.from(String(value)));
      }
    }
    expect(out.length).toBeGreaterThan(0);
    expect((await db.collection(collection).get()).size).toBeGreaterThan(0);
    return out;
  } finally {
    await db.terminate();
  }
}

/** Whether any stored byte string holds `entity` raw, as hex or as base64. */
function holdsEntity(data: readonly Buffer[], entity: Uint8Array): boolean {
  const needles = [Buffer.from(entity), Buffer.from(Buffer.from(entity).toString('hex')), Buffer.from(Buffer.from(entity).toString('base64'))];
  return data.some((bytes) => needles.some((needle) => bytes.includes(needle)));
}

for (const kind of KINDS) {
  describe(`${kind}:// on the emulator`, () => {
    let opened: OpenedBackend;
    let store: LongTermBackend;

    beforeAll(async () => {
      opened = await openGoogle(kind);
      store = opened.backend;
    });
    afterAll(async () => {
      await opened?.cleanup();
    });

    it('treats row-key separators and regex metacharacters in keys and prefixes as literal', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      const keys = ['a#1', 'a$1', 'a.*', 'a.b', 'a[1]', 'a/1', 'a\\E', 'a'];
      await store.upsert(keys.map((key) => record(entity, key)));
      expect(keysOf(await store.search(scope, 'a#', T0, { limit: 10 }))).toEqual(['a#1']);
      expect(keysOf(await store.search(scope, 'a.', T0, { limit: 10 }))).toEqual(['a.*', 'a.b']);
      expect(keysOf(await store.search(scope, 'a[', T0, { limit: 10 }))).toEqual(['a[1]']);
      expect(keysOf(await store.search(scope, 'a/', T0, { limit: 10 }))).toEqual(['a/1']);
      expect(keysOf(await store.search(scope, 'a\\', T0, { limit: 10 }))).toEqual(['a\\E']);
      // An agent whose name extends another's never shows up in the shorter one's scope.
      await store.upsert([record(entity, 'x', { agent: 'support-2' })]);
      expect(await store.search(scope, 'x', T0, { limit: 10 })).toEqual([]);
      expect((await store.history({ entityKey: entity, agent: 'support-2' }, 'x', T0)).map((r) => r.agent)).toEqual(['support-2']);
    });

    it('erases an entity so that no byte of its key is left in the emulator, and keeps the others', async () => {
      const erased = newEntity();
      const kept = newEntity();
      const old = record(erased, 'fact/old', { seq: 2 });
      await store.upsert([
        old,
        record(erased, 'fact/new', { seq: 3 }),
        record(erased, 'turn/1', { type: 'turn', expiresAtMs: T0 + 60_000 }),
        record(erased, 'profile', { agent: 'billing' }),
        record(kept, 'fact/old', { seq: 2 }),
        record(kept, 'turn/1', { type: 'turn', expiresAtMs: T0 + 60_000 }),
      ]);
      // Rewrites leave no older version of the erased entity's bytes behind either.
      await store.upsert([supersede(old, 'fact/new', T0 + 1, { seq: 3 }), record(erased, 'turn/1', { type: 'turn', seq: 4, expiresAtMs: T0 + 120_000 })]);
      expect(holdsEntity(await rawData(opened), erased)).toBe(true);

      expect(await store.eraseEntity(erased)).toBe(4);

      const data = await rawData(opened);
      expect(holdsEntity(data, erased)).toBe(false);
      expect(holdsEntity(data, kept)).toBe(true);
      expect(await store.load({ entityKey: kept, agent: 'support' }, 'fact/old', T0)).toEqual(record(kept, 'fact/old', { seq: 2 }));
      expect(keysOf(await store.search({ entityKey: kept, agent: 'support' }, '', T0, { limit: 10 }))).toEqual(['fact/old', 'turn/1']);
      expect(await store.eraseEntity(erased)).toBe(0);
    });

    it('sweeps per memory type: turns expire and go, facts stay, and an extended row survives the sweep', async () => {
      const entity = newEntity();
      const scope = { entityKey: entity, agent: 'support' };
      await store.upsert([
        record(entity, 'turn/1', { type: 'turn', expiresAtMs: T0 + 1_000 }),
        record(entity, 'turn/2', { type: 'turn', expiresAtMs: T0 + 1_000 }),
        record(entity, 'fact/1', { type: 'fact' }),
      ]);
      // A later write extends turn/2 before the sweep runs: the sweep must not delete it.
      await store.upsert([record(entity, 'turn/2', { type: 'turn', seq: 2, expiresAtMs: T0 + 10_000_000 })]);
      let swept = 0;
      for (let round = 0; round < 100; round += 1) {
        const n = await store.sweepExpired(T0 + 5_000, 50);
        swept += n;
        if (n < 50) break;
      }
      expect(swept).toBeGreaterThanOrEqual(1);
      expect(keysOf(await store.search(scope, '', T0 + 5_000, { limit: 10, includeSuperseded: true }))).toEqual(['fact/1', 'turn/2']);
      expect(await store.load(scope, 'turn/1', T0)).toBeUndefined(); // deleted, not only hidden
    });
  });
}
