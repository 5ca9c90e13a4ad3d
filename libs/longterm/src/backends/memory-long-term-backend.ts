/**
 * `memory://`: the reference backend, one process's map. The seq guard is a synchronous
 * read-compare-write inside one event-loop turn, so it is atomic against every other caller in
 * the process. Lost on exit: tests and single-process development only.
 */
import { decodeLongTermRecord, entityKeyHex, isExpired, LongTermUnavailable, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { compareKeys } from '../key-order.js';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromRecord, type LongTermRow } from '../long-term-row.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';

const scopeId = (entityKey: Uint8Array, agent: string): string => `${entityKeyHex(entityKey)}/${agent}`;

/** The in-process backend (`memory://`). */
export class MemoryLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Memory;
  readonly target = 'memory://';
  /** scope id → key → row; scope ids start with the entity's hex so erasure is a prefix match. */
  private readonly scopes = new Map<string, Map<string, LongTermRow>>();
  private closed = false;

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.live(scopeId(scope.entityKey, scope.agent), key, nowMs);
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    this.assertOpen();
    const rows = [...(this.scopes.get(scopeId(scope.entityKey, scope.agent))?.values() ?? [])]
      .filter((row) => row.key.startsWith(prefix) && !isExpired(row, nowMs) && (options.includeSuperseded === true || row.supersededBy === ''))
      .sort((a, b) => compareKeys(a.key, b.key));
    return rows.slice(0, options.limit).map((row) => decodeLongTermRecord(row.bytes));
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    this.assertOpen();
    return rows.map((row) => {
      const id = scopeId(row.entityKey, row.agent);
      let scope = this.scopes.get(id);
      const stored = scope?.get(row.key);
      if (stored !== undefined && row.seq < stored.seq) return UpsertVerdict.Stale;
      if (scope === undefined) this.scopes.set(id, (scope = new Map()));
      scope.set(row.key, { ...row, entityKey: new Uint8Array(row.entityKey), bytes: new Uint8Array(row.bytes) }); // plain copies: a Buffer would decode into Buffer fields
      return UpsertVerdict.Applied;
    });
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    const id = scopeId(scope.entityKey, scope.agent);
    return walkSupersedeChain(
      key,
      {
        load: async (k) => this.live(id, k, nowMs),
        predecessors: async (k) =>
          [...(this.scopes.get(id)?.values() ?? [])].filter((row) => row.supersededBy === k && !isExpired(row, nowMs)).map((row) => decodeLongTermRecord(row.bytes)),
      },
      MAX_HISTORY_LENGTH,
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    this.assertOpen();
    const prefix = `${entityKeyHex(entityKey)}/`;
    let erased = 0;
    for (const [id, rows] of this.scopes) {
      if (!id.startsWith(prefix)) continue;
      erased += rows.size;
      this.scopes.delete(id);
    }
    return erased;
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    this.assertOpen();
    let swept = 0;
    for (const [id, rows] of this.scopes) {
      for (const [key, row] of rows) {
        if (swept >= limit) return swept;
        if (!isExpired(row, nowMs)) continue;
        rows.delete(key);
        swept += 1;
      }
      if (rows.size === 0) this.scopes.delete(id);
    }
    return swept;
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    this.assertOpen();
    const all = [...this.scopes.values()].flatMap((rows) => [...rows.values()]);
    for (let i = 0; i < all.length; i += batchSize) yield all.slice(i, i + batchSize);
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private live(id: string, key: string, nowMs: number): LongTermRecord | undefined {
    this.assertOpen();
    const row = this.scopes.get(id)?.get(key);
    return row === undefined || isExpired(row, nowMs) ? undefined : decodeLongTermRecord(row.bytes);
  }

  private assertOpen(): void {
    if (this.closed) throw new LongTermUnavailable('the memory:// long-term backend is closed');
  }
}
