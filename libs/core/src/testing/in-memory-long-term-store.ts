/**
 * An in-memory {@link LongTermStore} for core specs: the seq guard (apply iff seq >= stored),
 * ordered bounded prefix search, expiry filtering, a log of upsert calls and a fault hook.
 */
import { entityKeyHex } from '../ids/entity-key-hex.js';
import { isExpired, type LongTermRecord } from '../longterm/long-term-record.js';
import { LongTermUnavailable, type LongTermScope, type LongTermStore, type SearchOptions } from '../longterm/long-term-store.js';

export class InMemoryLongTermStore implements LongTermStore {
  private readonly rows = new Map<string, LongTermRecord>();
  /** Every upsert call, in order (each with the records it carried). */
  readonly upsertCalls: (readonly LongTermRecord[])[] = [];
  private failures = 0;

  /** Makes the next `n` upsert calls fail with `LongTermUnavailable`, writing nothing. */
  failNextUpserts(n: number): this {
    this.failures = n;
    return this;
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    const row = this.rows.get(rowKey(scope, key));
    return row === undefined || isExpired(row, nowMs) ? undefined : row;
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    const scopePrefix = rowKey(scope, '');
    return [...this.rows.entries()]
      .filter(([k, r]) => k.startsWith(scopePrefix) && r.key.startsWith(prefix) && !isExpired(r, nowMs) && (r.supersededBy === '' || options.includeSuperseded === true))
      .map(([, r]) => r)
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .slice(0, options.limit);
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    this.upsertCalls.push(records);
    if (this.failures > 0) {
      this.failures -= 1;
      throw new LongTermUnavailable('injected long-term outage');
    }
    for (const record of records) {
      const key = rowKey(record, record.key);
      const stored = this.rows.get(key);
      if (stored === undefined || record.seq >= stored.seq) this.rows.set(key, record);
    }
  }

  /** The stored row, ignoring expiry (for assertions). */
  row(scope: LongTermScope, key: string): LongTermRecord | undefined {
    return this.rows.get(rowKey(scope, key));
  }

  get size(): number {
    return this.rows.size;
  }
}

function rowKey(scope: LongTermScope, key: string): string {
  return `${entityKeyHex(scope.entityKey)}|${scope.agent}|${key}`;
}
