/**
 * `bigtable://<project>/<instance>/<table>`: one row per record (layout in `bigtable-layout.ts`,
 * decision 0020). The seq guard is one `CheckAndMutateRow` per row: the predicate matches iff the
 * stored seq cell is greater than the incoming seq (a big-endian value range), and only when it
 * does not match are the row's cells replaced (delete family + set, one atomic mutation). Bigtable
 * applies a check-and-mutate atomically per row, so two writers can never both pass the check
 * against the same stored seq (decision 0021).
 *
 * Rows of one batch apply per row key (keys in parallel, one key's rows in order; Bigtable has no
 * multi-row transaction): an outage mid-batch
 * leaves a prefix of it applied, which a retry completes (the guard makes every row idempotent).
 * Every call carries a short gRPC deadline without client retries, and a budget bounds the
 * client's own stream retries, so an unreachable Bigtable answers `LongTermUnavailable` in about
 * {@link CALL_BUDGET_MS} and the next call after it is back succeeds (the channel reconnects).
 */
import type { Bigtable, Table } from '@google-cloud/bigtable';
import { decodeLongTermRecord, isExpired, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromBytes, rowFromRecord, type LongTermRow } from '../long-term-row.js';
import type { LongTermUri } from '../long-term-uri.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';
import { applyPerKey } from './apply-per-key.js';
import { asUnavailable, guarded, within } from './backend-failure.js';
import { BIGTABLE_FAMILY, BigtableColumn, bigEndian64, bigtableEntityPrefix, bigtablePrefixRange, bigtableRowKey } from './bigtable-layout.js';

type BigtableUri = Extract<LongTermUri, { kind: 'bigtable' }>;

/** The gRPC deadline of one call, without client-side retries (the caller retries). */
const CALL_TIMEOUT_MS = 2_500;
/** The most one backend operation may take before it answers unavailable. */
export const CALL_BUDGET_MS = 3_500;
const GAX = { timeout: CALL_TIMEOUT_MS, retry: { retryCodes: [] as number[] } };
/** Rows read per page of a scan. */
const PAGE_ROWS = 256;

/** A row as the client returns it with `decode: false`. */
interface ReadRow {
  readonly id: Buffer | string;
  readonly data: Record<string, Record<string, { value: Buffer | number | string }[]>>;
}

interface ReadOptions {
  readonly start?: string;
  readonly startInclusive?: boolean;
  readonly end?: string;
  readonly keys?: readonly string[];
  readonly filter?: unknown;
  readonly limit?: number;
}

/** The Bigtable backend. Build it with {@link BigtableLongTermBackend.open} (imports the client lazily). */
export class BigtableLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Bigtable;
  readonly target: string;
  private closed = false;

  private constructor(
    private readonly client: Bigtable,
    private readonly table: Table,
    private readonly rawUri: string,
    target: string,
  ) {
    this.target = target;
  }

  /**
   * Connects (Application Default Credentials, or the emulator at `BIGTABLE_EMULATOR_HOST`) and,
   * unless `createTable` is false, creates the table with its family when it is missing
   * (idempotent: every replica may try).
   *
   * @throws {LongTermUnavailable} when Bigtable cannot be reached or the table cannot be prepared.
   */
  static async open(uri: BigtableUri, rawUri: string, options: { readonly createTable?: boolean } = {}): Promise<BigtableLongTermBackend> {
    const { Bigtable: Client } = await import('@google-cloud/bigtable');
    const client = new Client({ projectId: uri.projectId, metricsEnabled: false });
    const table = client.instance(uri.instanceId).table(uri.tableId);
    try {
      await within(CALL_BUDGET_MS * 2, `long-term open on ${uri.redacted}`, async () => {
        const [exists] = await table.exists({ timeout: CALL_TIMEOUT_MS * 2 });
        if (exists || options.createTable === false) return;
        try {
          await table.create({ families: [{ name: BIGTABLE_FAMILY, rule: { versions: 1 } }] });
        } catch (error) {
          if ((error as { code?: number }).code !== 6) throw error; // ALREADY_EXISTS: another replica won
        }
      });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw asUnavailable(uri.redacted, rawUri, 'open', error);
    }
    return new BigtableLongTermBackend(client, table, rawUri, uri.redacted);
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('load', () => this.loadLive(scope, key, nowMs));
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const range = bigtablePrefixRange(scope.entityKey, scope.agent, prefix);
    const includeSuperseded = options.includeSuperseded === true;
    return this.run('search', async () => {
      const found: LongTermRecord[] = [];
      let start = range.start;
      let startInclusive = true;
      for (;;) {
        const page = await this.read({ start, startInclusive, end: range.end, limit: Math.max(options.limit, PAGE_ROWS) });
        for (const row of page) {
          const record = recordOf(row);
          if (isExpired(record, nowMs) || (!includeSuperseded && record.supersededBy !== '')) continue;
          found.push(record);
          if (found.length >= options.limit) return found;
        }
        if (page.length < Math.max(options.limit, PAGE_ROWS)) return found;
        start = rowKeyOf(page[page.length - 1] as ReadRow);
        startInclusive = false;
      }
    });
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    return this.run('upsert', () => applyPerKey(rows, (row) => bigtableRowKey(row.entityKey, row.agent, row.key), (row) => this.applyRow(row)));
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    const range = bigtablePrefixRange(scope.entityKey, scope.agent, '');
    return this.run('history', () =>
      walkSupersedeChain(
        key,
        {
          load: (k) => this.loadLive(scope, k, nowMs),
          predecessors: async (k) => {
            const target = Buffer.from(k, 'utf8');
            // Server-side: only rows whose sup cell equals k (a value range, never a regex).
            const pointing = await this.read({ start: range.start, end: range.end, filter: [{ family: BIGTABLE_FAMILY }, { column: BigtableColumn.SupersededBy }, { value: { start: target, end: target } }] });
            if (pointing.length === 0) return [];
            const rows = await this.read({ keys: pointing.map(rowKeyOf) });
            return rows.map(recordOf).filter((record) => !isExpired(record, nowMs));
          },
        },
        MAX_HISTORY_LENGTH,
      ),
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    const prefix = bigtableEntityPrefix(entityKey);
    return this.run('erase', async () => {
      const rows = await this.read({ start: prefix, end: `${prefix.slice(0, -1)}$`, filter: [{ row: { cellLimit: 1 } }, { value: { strip: true } }] });
      if (rows.length === 0) return 0;
      await this.table.mutate(
        rows.map((row) => ({ key: rowKeyOf(row), method: 'delete' })),
        { gaxOptions: GAX },
      );
      return rows.length;
    });
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    // A full-table scan, filtered on the server to rows whose exp cell is in [1, nowMs] (decision 0022).
    const expired = [{ family: BIGTABLE_FAMILY }, { column: BigtableColumn.Expiry }, { value: { start: bigEndian64(1), end: bigEndian64(nowMs) } }];
    return this.run('sweep', async () => {
      const rows = await this.read({ filter: [...expired, { value: { strip: true } }], limit });
      let swept = 0;
      for (const row of rows) {
        // Deleted only if still expired: a writer that extended the row in between keeps it.
        const [matched] = await this.table.row(rowKeyOf(row)).filter(expired, { onMatch: [{ method: 'delete' }], gaxOptions: GAX });
        if (matched) swept += 1;
      }
      return swept;
    });
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    let start: string | undefined;
    for (;;) {
      const from = start;
      const page = await this.run('export', () => this.read({ ...(from === undefined ? {} : { start: from, startInclusive: false }), limit: batchSize }));
      if (page.length > 0) yield page.map((row) => rowFromBytes(bytesOf(row)));
      if (page.length < batchSize) return;
      start = rowKeyOf(page[page.length - 1] as ReadRow);
    }
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.close().catch(() => undefined);
  }

  /** One guarded write: replace the row's cells unless its stored seq is higher. */
  private async applyRow(row: LongTermRow): Promise<UpsertVerdict> {
    const higher = [{ family: BIGTABLE_FAMILY }, { column: BigtableColumn.Seq }, { value: { start: bigEndian64(row.seq + 1) } }];
    const cells = {
      [BigtableColumn.Bytes]: Buffer.from(row.bytes),
      [BigtableColumn.Seq]: bigEndian64(row.seq),
      [BigtableColumn.Expiry]: bigEndian64(row.expiresAtMs),
      [BigtableColumn.SupersededBy]: Buffer.from(row.supersededBy, 'utf8'),
    };
    const [storedIsHigher] = await this.table.row(bigtableRowKey(row.entityKey, row.agent, row.key)).filter(higher, {
      // Delete first: no older cell version (old record bytes) outlives the write, GC or not.
      onNoMatch: [
        { method: 'delete', data: [BIGTABLE_FAMILY] },
        { method: 'insert', data: { [BIGTABLE_FAMILY]: cells } },
      ],
      gaxOptions: GAX,
    });
    return storedIsHigher ? UpsertVerdict.Stale : UpsertVerdict.Applied;
  }

  private async loadLive(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    const [row] = await this.read({ keys: [bigtableRowKey(scope.entityKey, scope.agent, key)] });
    if (row === undefined) return undefined;
    const record = recordOf(row);
    return isExpired(record, nowMs) ? undefined : record;
  }

  private async read(options: ReadOptions): Promise<ReadRow[]> {
    const request: Record<string, unknown> = { decode: false, gaxOptions: GAX };
    if (options.keys !== undefined) request['keys'] = [...options.keys];
    else if (options.start !== undefined || options.end !== undefined) {
      request['ranges'] = [
        {
          ...(options.start === undefined ? {} : { start: { value: options.start, inclusive: options.startInclusive !== false } }),
          ...(options.end === undefined ? {} : { end: { value: options.end, inclusive: false } }),
        },
      ];
    }
    if (options.filter !== undefined) request['filter'] = options.filter;
    if (options.limit !== undefined) request['limit'] = options.limit;
    const [rows] = await this.table.getRows(request);
    return rows as unknown as ReadRow[];
  }

  private run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return guarded(this.target, this.rawUri, operation, () => {
      if (this.closed) throw new Error('the Bigtable long-term backend is closed');
      return within(CALL_BUDGET_MS, `long-term ${operation} on ${this.target}`, work);
    });
  }
}

function rowKeyOf(row: ReadRow): string {
  return typeof row.id === 'string' ? row.id : row.id.toString('utf8');
}

/** The record bytes of a row (an 8-byte cell comes back as a number from the client; records are longer, but be exact). */
function bytesOf(row: ReadRow): Uint8Array {
  const cell = row.data[BIGTABLE_FAMILY]?.[BigtableColumn.Bytes]?.[0]?.value;
  if (cell === undefined) throw new Error(`row ${JSON.stringify(rowKeyOf(row))} has no record cell`);
  if (typeof cell === 'number') return new Uint8Array(bigEndian64(cell));
  if (typeof cell === 'string') return new Uint8Array(Buffer.from(cell, 'binary'));
  return new Uint8Array(cell.buffer, cell.byteOffset, cell.byteLength).slice();
}

function recordOf(row: ReadRow): LongTermRecord {
  return decodeLongTermRecord(bytesOf(row));
}

