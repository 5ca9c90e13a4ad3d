/**
 * `firestore://<project>/<database>?collection=<name>`: one document per record (layout in
 * `firestore-layout.ts`, decision 0020). The seq guard is a compare-and-set on the document's
 * update time: read the document; if its seq is higher the row is stale; otherwise `create` it
 * (precondition: absent) or `update` it with the precondition `lastUpdateTime` = the time just
 * read. Firestore checks a precondition atomically with the write, so a write lands only on the
 * version it was decided against; a lost race (`ALREADY_EXISTS` / `FAILED_PRECONDITION`) re-reads
 * and decides again (decision 0021). No locks are held, so concurrent writers never wait on
 * each other and a dead writer leaves nothing locked.
 *
 * Rows of one batch apply per key (keys in parallel, one key's rows in order); an outage mid-batch
 * leaves some applied, which a retry completes. The client's own retries are shortened and a
 * budget bounds each operation, so an unreachable Firestore answers `LongTermUnavailable` in about
 * {@link FIRESTORE_CALL_BUDGET_MS} and the next call after it is back succeeds.
 */
import type { CollectionReference, DocumentSnapshot, Firestore } from '@google-cloud/firestore';
import { decodeLongTermRecord, isExpired, LongTermUnavailable, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromBytes, rowFromRecord, type LongTermRow } from '../long-term-row.js';
import type { LongTermUri } from '../long-term-uri.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';
import { asUnavailable, guarded, within } from './backend-failure.js';
import { applyPerKey } from './apply-per-key.js';
import { FirestoreField, firestoreDocumentId, firestoreEntityDigest, firestorePrefixRange, firestoreScopedKey } from './firestore-layout.js';

type FirestoreUri = Extract<LongTermUri, { kind: 'firestore' }>;

/** The most one backend operation may take before it answers unavailable. */
export const FIRESTORE_CALL_BUDGET_MS = 3_500;
/** How long opening may wait for the database to answer its first query. */
const OPEN_BUDGET_MS = 30_000;
/** Lost compare-and-set races one row may retry before the write answers unavailable. */
const MAX_CAS_ATTEMPTS = 64;
/** Documents read per page of a query. */
const PAGE_DOCS = 256;
/** Deletes per batched commit (Firestore allows 500 writes). */
const DELETE_BATCH = 400;
const GRPC_ALREADY_EXISTS = 6;
const GRPC_FAILED_PRECONDITION = 9;
const GRPC_NOT_FOUND = 5;

/** gax settings: one short attempt per RPC (the caller retries; the budget bounds the client's own loop). */
const CLIENT_CONFIG = {
  interfaces: {
    'google.firestore.v1.Firestore': {
      retry_params: {
        default: {
          initial_retry_delay_millis: 100,
          retry_delay_multiplier: 1.3,
          max_retry_delay_millis: 500,
          initial_rpc_timeout_millis: 2_500,
          rpc_timeout_multiplier: 1,
          max_rpc_timeout_millis: 2_500,
          total_timeout_millis: 2_500,
        },
      },
    },
  },
};

/** The Firestore backend. Build it with {@link FirestoreLongTermBackend.open} (imports the client lazily). */
export class FirestoreLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Firestore;
  readonly target: string;
  private readonly collection: CollectionReference;
  private closed = false;

  private constructor(
    private readonly db: Firestore,
    collection: string,
    private readonly rawUri: string,
    target: string,
  ) {
    this.target = target;
    this.collection = db.collection(collection);
  }

  /**
   * Connects (Application Default Credentials, or the emulator at `FIRESTORE_EMULATOR_HOST`) and
   * reads one document to prove the database answers (retrying for up to 30 s). Needs no index beyond Firestore's automatic
   * single-field ones.
   *
   * @throws {LongTermUnavailable} when Firestore cannot be reached within 30 s.
   */
  static async open(uri: FirestoreUri, rawUri: string): Promise<FirestoreLongTermBackend> {
    const { Firestore: Client } = await import('@google-cloud/firestore');
    const db = new Client({ projectId: uri.projectId, databaseId: uri.databaseId, clientConfig: CLIENT_CONFIG });
    const backend = new FirestoreLongTermBackend(db, uri.collection, rawUri, uri.redacted);
    try {
      // A cold database (or emulator JVM) answers its first query slowly: probe until the open budget is spent.
      await within(OPEN_BUDGET_MS, `long-term open on ${uri.redacted}`, async () => {
        for (;;) {
          try {
            return await backend.collection.limit(1).get();
          } catch (error) {
            if (backend.closed) throw error;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      });
    } catch (error) {
      backend.closed = true;
      await db.terminate().catch(() => undefined);
      throw asUnavailable(uri.redacted, rawUri, 'open', error);
    }
    return backend;
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('load', () => this.loadLive(scope, key, nowMs));
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const range = firestorePrefixRange(scope.entityKey, scope.agent, prefix);
    const includeSuperseded = options.includeSuperseded === true;
    const page = Math.max(options.limit, PAGE_DOCS);
    return this.run('search', async () => {
      const found: LongTermRecord[] = [];
      let after: string | undefined;
      for (;;) {
        let query = this.collection.where(FirestoreField.ScopedKey, '>=', range.start).where(FirestoreField.ScopedKey, '<', range.end).orderBy(FirestoreField.ScopedKey);
        if (after !== undefined) query = query.startAfter(after);
        const { docs } = await query.limit(page).get();
        for (const doc of docs) {
          const record = recordOf(doc);
          if (isExpired(record, nowMs) || (!includeSuperseded && record.supersededBy !== '')) continue;
          found.push(record);
          if (found.length >= options.limit) return found;
        }
        if (docs.length < page) return found;
        after = (docs[docs.length - 1] as DocumentSnapshot).get(FirestoreField.ScopedKey) as string;
      }
    });
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    return this.run('upsert', () => applyPerKey(rows, (row) => firestoreDocumentId(row.entityKey, row.agent, row.key), (row) => this.applyRow(row)));
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('history', () =>
      walkSupersedeChain(
        key,
        {
          load: (k) => this.loadLive(scope, k, nowMs),
          predecessors: async (k) => {
            const { docs } = await this.collection.where(FirestoreField.SupersededBy, '==', firestoreScopedKey(scope.entityKey, scope.agent, k)).limit(MAX_HISTORY_LENGTH).get();
            return docs.map(recordOf).filter((record) => !isExpired(record, nowMs));
          },
        },
        MAX_HISTORY_LENGTH,
      ),
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    const hex = Buffer.from(entityKey).toString('hex');
    return this.run('erase', async () => {
      let erased = 0;
      for (;;) {
        const { docs } = await this.collection.where(FirestoreField.Entity, '==', firestoreEntityDigest(entityKey)).limit(DELETE_BATCH).get();
        // The digest only narrows the query; the record itself says whose it is.
        const mine = docs.filter((doc) => Buffer.from(recordOf(doc).entityKey).toString('hex') === hex);
        if (mine.length === 0) return erased;
        const batch = this.db.batch();
        for (const doc of mine) batch.delete(doc.ref);
        await batch.commit();
        erased += mine.length;
        if (docs.length < DELETE_BATCH) return erased;
      }
    });
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    // Reads only expired documents: a range on exp uses its automatic index (decision 0022).
    return this.run('sweep', async () => {
      const { docs } = await this.collection.where(FirestoreField.Expiry, '>', 0).where(FirestoreField.Expiry, '<=', nowMs).orderBy(FirestoreField.Expiry).limit(limit).get();
      const outcomes = await Promise.all(
        docs.map(async (doc) => {
          try {
            // Only the version read as expired: a writer that replaced it in between keeps its row.
            await doc.ref.delete({ lastUpdateTime: doc.updateTime });
            return 1;
          } catch (error) {
            const code = (error as { code?: number }).code;
            if (code === GRPC_FAILED_PRECONDITION || code === GRPC_NOT_FOUND) return 0;
            throw error;
          }
        }),
      );
      return outcomes.reduce<number>((sum, n) => sum + n, 0);
    });
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    const { FieldPath } = await import('@google-cloud/firestore');
    let after: string | undefined;
    for (;;) {
      const from = after;
      const docs = await this.run('export', async () => {
        let query = this.collection.orderBy(FieldPath.documentId());
        if (from !== undefined) query = query.startAfter(from);
        return (await query.limit(batchSize).get()).docs;
      });
      if (docs.length > 0) yield docs.map((doc) => rowFromBytes(bytesOf(doc)));
      if (docs.length < batchSize) return;
      after = (docs[docs.length - 1] as DocumentSnapshot).id;
    }
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.terminate().catch(() => undefined);
  }

  /** One guarded write: compare-and-set on the document's update time, re-deciding after a lost race. */
  private async applyRow(row: LongTermRow): Promise<UpsertVerdict> {
    const ref = this.collection.doc(firestoreDocumentId(row.entityKey, row.agent, row.key));
    const fields = {
      [FirestoreField.Bytes]: Buffer.from(row.bytes),
      [FirestoreField.Seq]: row.seq,
      [FirestoreField.Expiry]: row.expiresAtMs,
      [FirestoreField.ScopedKey]: firestoreScopedKey(row.entityKey, row.agent, row.key),
      [FirestoreField.SupersededBy]: row.supersededBy === '' ? '' : firestoreScopedKey(row.entityKey, row.agent, row.supersededBy),
      [FirestoreField.Entity]: firestoreEntityDigest(row.entityKey),
    };
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      const stored = await ref.get();
      if (stored.exists && (stored.get(FirestoreField.Seq) as number) > row.seq) return UpsertVerdict.Stale;
      try {
        if (stored.exists) await ref.update(fields, { lastUpdateTime: stored.updateTime as NonNullable<typeof stored.updateTime> });
        else await ref.create(fields);
        return UpsertVerdict.Applied;
      } catch (error) {
        const code = (error as { code?: number }).code;
        if (code !== GRPC_ALREADY_EXISTS && code !== GRPC_FAILED_PRECONDITION) throw error;
      }
    }
    throw new LongTermUnavailable(`long-term upsert on ${this.target}: ${MAX_CAS_ATTEMPTS} lost races on one document; retry later`);
  }

  private async loadLive(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    const doc = await this.collection.doc(firestoreDocumentId(scope.entityKey, scope.agent, key)).get();
    if (!doc.exists) return undefined;
    const record = recordOf(doc);
    return isExpired(record, nowMs) ? undefined : record;
  }

  private run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return guarded(this.target, this.rawUri, operation, () => {
      if (this.closed) throw new Error('the Firestore long-term backend is closed');
      return within(FIRESTORE_CALL_BUDGET_MS, `long-term ${operation} on ${this.target}`, work);
    });
  }
}

function bytesOf(doc: DocumentSnapshot): Uint8Array {
  const bytes = doc.get(FirestoreField.Bytes) as Buffer | undefined;
  if (bytes === undefined) throw new Error(`document ${doc.id} has no record bytes`);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice();
}

function recordOf(doc: DocumentSnapshot): LongTermRecord {
  return decodeLongTermRecord(bytesOf(doc));
}

