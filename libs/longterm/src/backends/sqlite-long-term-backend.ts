/**
 * `sqlite://<path>`: the embedded default for local runs (better-sqlite3 12; major 13 crashes on
 * Node 20). One table, `WITHOUT ROWID`, primary key (entity_key, agent, key). The seq guard is
 * `INSERT … ON CONFLICT … DO UPDATE … WHERE excluded.seq >= seq` inside a transaction per batch:
 * a crash mid-batch leaves none of it. WAL mode, so readers never block the writer. The table is
 * created on open (idempotent DDL). One file serves one host: replicas on several hosts need
 * Redis or PostgreSQL.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { decodeLongTermRecord, isExpired, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { prefixUpperBound } from '../key-order.js';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromRecord, type LongTermRow } from '../long-term-row.js';
import type { LongTermUri } from '../long-term-uri.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';
import { guarded } from './backend-failure.js';

/** The table every SQL backend uses. */
export const LONG_TERM_TABLE = 'nats_agents_longterm';

/** The SQLite DDL, run (idempotently) on open. */
export const SQLITE_LONG_TERM_DDL = `
CREATE TABLE IF NOT EXISTS ${LONG_TERM_TABLE} (
  entity_key    BLOB    NOT NULL,
  agent         TEXT    NOT NULL,
  key           TEXT    NOT NULL,
  seq           INTEGER NOT NULL CHECK (seq >= 0),
  expires_at_ms INTEGER NOT NULL DEFAULT 0,
  superseded_by TEXT    NOT NULL DEFAULT '',
  rec           BLOB    NOT NULL,
  PRIMARY KEY (entity_key, agent, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ${LONG_TERM_TABLE}_expiry ON ${LONG_TERM_TABLE} (expires_at_ms) WHERE expires_at_ms > 0;
CREATE INDEX IF NOT EXISTS ${LONG_TERM_TABLE}_superseded ON ${LONG_TERM_TABLE} (entity_key, agent, superseded_by) WHERE superseded_by <> '';
`;

type SqliteUri = Extract<LongTermUri, { kind: 'sqlite' }>;
type Db = BetterSqlite3.Database;
interface StoredRow {
  entity_key: Buffer;
  agent: string;
  key: string;
  seq: number;
  expires_at_ms: number;
  superseded_by: string;
  rec: Buffer;
}

const buf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const bytesOf = (stored: Buffer): Uint8Array => new Uint8Array(stored);

/** The SQLite backend. Build it with {@link SqliteLongTermBackend.open} (imports better-sqlite3 lazily). */
export class SqliteLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Sqlite;
  readonly target: string;
  private readonly statements = new Map<string, BetterSqlite3.Statement>();
  private closed = false;

  private constructor(
    private readonly db: Db,
    uri: SqliteUri,
    private readonly rawUri: string,
  ) {
    this.target = uri.redacted;
  }

  /**
   * Opens (creating the file, its directory and the table if needed) the database of `uri`.
   *
   * @throws {LongTermUnavailable} when the file cannot be opened or the DDL fails.
   */
  static async open(uri: SqliteUri, rawUri: string): Promise<SqliteLongTermBackend> {
    const { default: Database } = await import('better-sqlite3');
    return guarded(uri.redacted, rawUri, 'open', () => {
      if (uri.path !== ':memory:') mkdirSync(dirname(uri.path), { recursive: true });
      const db = new Database(uri.path, { timeout: 5_000 });
      try {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        // Deleted rows are overwritten with zeros, so an erased entity leaves no bytes in free pages.
        db.pragma('secure_delete = ON');
        db.exec(SQLITE_LONG_TERM_DDL);
      } catch (error) {
        db.close();
        throw error;
      }
      return new SqliteLongTermBackend(db, uri, rawUri);
    });
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('load', () => this.loadLive(scope, key, nowMs));
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const upper = prefix === '' ? undefined : prefixUpperBound(prefix);
    const sql = [
      `SELECT rec FROM ${LONG_TERM_TABLE} WHERE entity_key = ? AND agent = ? AND key >= ?`,
      upper === undefined ? '' : 'AND key < ?',
      'AND (expires_at_ms = 0 OR expires_at_ms > ?)',
      options.includeSuperseded === true ? '' : "AND superseded_by = ''",
      'ORDER BY key LIMIT ?',
    ].join(' ');
    const params = [buf(scope.entityKey), scope.agent, prefix, ...(upper === undefined ? [] : [upper]), nowMs, options.limit];
    return this.run('search', () => (this.statement(sql).all(...params) as Pick<StoredRow, 'rec'>[]).map((row) => decodeLongTermRecord(bytesOf(row.rec))));
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    const upsert = this.statement(
      `INSERT INTO ${LONG_TERM_TABLE} (entity_key, agent, key, seq, expires_at_ms, superseded_by, rec) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (entity_key, agent, key) DO UPDATE SET
         seq = excluded.seq, expires_at_ms = excluded.expires_at_ms, superseded_by = excluded.superseded_by, rec = excluded.rec
       WHERE excluded.seq >= ${LONG_TERM_TABLE}.seq`,
    );
    const batch = this.db.transaction((batchRows: readonly LongTermRow[]) =>
      batchRows.map((row) =>
        upsert.run(buf(row.entityKey), row.agent, row.key, row.seq, row.expiresAtMs, row.supersededBy, buf(row.bytes)).changes > 0 ? UpsertVerdict.Applied : UpsertVerdict.Stale,
      ),
    );
    return this.run('upsert', () => batch.immediate(rows));
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    const predecessors = `SELECT rec FROM ${LONG_TERM_TABLE} WHERE entity_key = ? AND agent = ? AND superseded_by = ? AND (expires_at_ms = 0 OR expires_at_ms > ?)`;
    return this.run('history', () =>
      walkSupersedeChain(
        key,
        {
          load: async (k) => this.loadLive(scope, k, nowMs),
          predecessors: async (k) =>
            (this.statement(predecessors).all(buf(scope.entityKey), scope.agent, k, nowMs) as Pick<StoredRow, 'rec'>[]).map((row) => decodeLongTermRecord(bytesOf(row.rec))),
        },
        MAX_HISTORY_LENGTH,
      ),
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    return this.run('erase', () => {
      const erased = this.statement(`DELETE FROM ${LONG_TERM_TABLE} WHERE entity_key = ?`).run(buf(entityKey)).changes;
      // The write-ahead log still holds the pages as they were before the delete: fold it into the
      // (zeroed) database and truncate it, so the entity's bytes leave the disk now.
      if (erased > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
      return erased;
    });
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    const sql = `DELETE FROM ${LONG_TERM_TABLE} WHERE (entity_key, agent, key) IN (
      SELECT entity_key, agent, key FROM ${LONG_TERM_TABLE} WHERE expires_at_ms > 0 AND expires_at_ms <= ? LIMIT ?)`;
    return this.run('sweep', () => this.statement(sql).run(nowMs, limit).changes);
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    const columns = 'entity_key, agent, key, seq, expires_at_ms, superseded_by, rec';
    const first = `SELECT ${columns} FROM ${LONG_TERM_TABLE} ORDER BY entity_key, agent, key LIMIT ?`;
    const next = `SELECT ${columns} FROM ${LONG_TERM_TABLE} WHERE (entity_key, agent, key) > (?, ?, ?) ORDER BY entity_key, agent, key LIMIT ?`;
    let last: StoredRow | undefined;
    for (;;) {
      const after = last;
      const page = await this.run('export', () =>
        (after === undefined ? this.statement(first).all(batchSize) : this.statement(next).all(after.entity_key, after.agent, after.key, batchSize)) as StoredRow[],
      );
      if (page.length === 0) return;
      yield page.map((row) => ({
        entityKey: bytesOf(row.entity_key),
        agent: row.agent,
        key: row.key,
        seq: row.seq,
        expiresAtMs: row.expires_at_ms,
        supersededBy: row.superseded_by,
        bytes: bytesOf(row.rec),
      }));
      if (page.length < batchSize) return;
      last = page[page.length - 1];
    }
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  private loadLive(scope: LongTermScope, key: string, nowMs: number): LongTermRecord | undefined {
    const row = this.statement(`SELECT rec FROM ${LONG_TERM_TABLE} WHERE entity_key = ? AND agent = ? AND key = ?`).get(buf(scope.entityKey), scope.agent, key) as
      | Pick<StoredRow, 'rec'>
      | undefined;
    if (row === undefined) return undefined;
    const record = decodeLongTermRecord(bytesOf(row.rec));
    return isExpired(record, nowMs) ? undefined : record;
  }

  private statement(sql: string): BetterSqlite3.Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run<T>(operation: string, work: () => Promise<T> | T): Promise<T> {
    return guarded(this.target, this.rawUri, operation, () => {
      if (this.closed) throw new Error('the SQLite long-term backend is closed');
      return work();
    });
  }
}
