import { ToolArgumentError } from '../tools/tool-errors.js';
import { toEntry, type LongTermApi, type LongTermEntry, type SaveOptions } from './long-term-api.js';
import { isExpired, type LongTermRecord } from './long-term-record.js';
import type { LongTermScope, LongTermStore } from './long-term-store.js';
import { DEFAULT_MEMORY_TYPE, MEMORY_TYPE_PATTERN, retentionFor } from './memory-type.js';

/** What one attempt's long-term view is built from. */
export interface StagedLongTermInit {
  readonly store: LongTermStore;
  readonly scope: LongTermScope;
  readonly seq: number;
  /** The activation clock: stamps writes, decides expiry of reads. */
  readonly nowMs: number;
  /** Retention per type in ms (0 = indefinite); types absent here fall back to the defaults. */
  readonly retentionMs?: Readonly<Record<string, number>>;
}

const utf8 = new TextEncoder();

/**
 * One attempt's long-term tier: reads go to the store (through the staged overlay), writes are
 * staged as records stamped with the activation's seq and event time. The runtime flushes
 * {@link StagedLongTerm.upserts} before it commits; a discarded attempt's staging is simply dropped.
 */
export class StagedLongTerm implements LongTermApi {
  private readonly staged = new Map<string, LongTermRecord>();

  constructor(private readonly init: StagedLongTermInit) {}

  async load(key: string, options: { readonly includeSuperseded?: boolean } = {}): Promise<LongTermEntry | undefined> {
    requireKey(key);
    const record = this.staged.get(key) ?? (await this.init.store.load(this.init.scope, key, this.init.nowMs));
    if (record === undefined || isExpired(record, this.init.nowMs)) return undefined;
    if (record.supersededBy !== '' && options.includeSuperseded !== true) return undefined;
    return toEntry(record);
  }

  async search(prefix: string, options: { readonly limit: number; readonly includeSuperseded?: boolean }): Promise<LongTermEntry[]> {
    if (!Number.isInteger(options.limit) || options.limit <= 0) throw new RangeError(`search limit must be a positive integer, got ${options.limit}`);
    const stored = await this.init.store.search(this.init.scope, prefix, this.init.nowMs, options);
    const merged = new Map<string, LongTermRecord>(stored.map((r) => [r.key, r]));
    for (const [key, record] of this.staged) if (key.startsWith(prefix)) merged.set(key, record);
    return [...merged.values()]
      .filter((r) => !isExpired(r, this.init.nowMs) && (r.supersededBy === '' || options.includeSuperseded === true))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, options.limit)
      .map(toEntry);
  }

  save(key: string, value: Uint8Array | string, options: SaveOptions = {}): void {
    requireKey(key);
    const type = options.type ?? DEFAULT_MEMORY_TYPE;
    if (!MEMORY_TYPE_PATTERN.test(type)) throw new ToolArgumentError('longterm.save', `memory type '${type}' must match ${MEMORY_TYPE_PATTERN.source}`);
    if (options.confidence !== undefined && !(options.confidence >= 0 && options.confidence <= 1)) {
      throw new ToolArgumentError('longterm.save', `confidence must be within [0, 1], got ${options.confidence}`);
    }
    const retention = options.ttlMs ?? retentionFor(type, this.init.retentionMs);
    if (!Number.isFinite(retention) || retention < 0) throw new ToolArgumentError('longterm.save', `ttlMs must be a non-negative number, got ${retention}`);
    this.staged.set(key, {
      entityKey: this.init.scope.entityKey,
      agent: this.init.scope.agent,
      key,
      value: typeof value === 'string' ? utf8.encode(value) : value,
      seq: this.init.seq,
      updatedAtMs: this.init.nowMs,
      type,
      expiresAtMs: retention > 0 ? this.init.nowMs + retention : 0,
      supersededBy: '',
      supersededAtMs: 0,
      confidence: options.confidence ?? 0,
    });
  }

  async supersede(key: string, byKey: string): Promise<void> {
    requireKey(byKey);
    await this.rewrite(key, { supersededBy: byKey, supersededAtMs: this.init.nowMs });
  }

  async restore(key: string): Promise<void> {
    await this.rewrite(key, { supersededBy: '', supersededAtMs: 0 });
  }

  /** The staged upserts, in key order (deterministic flush order). */
  get upserts(): LongTermRecord[] {
    return [...this.staged.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async rewrite(key: string, change: Pick<LongTermRecord, 'supersededBy' | 'supersededAtMs'>): Promise<void> {
    requireKey(key);
    const current = this.staged.get(key) ?? (await this.init.store.load(this.init.scope, key, this.init.nowMs));
    if (current === undefined) throw new ToolArgumentError('longterm', `no long-term record '${key}' to change`);
    this.staged.set(key, { ...current, ...change, seq: this.init.seq, updatedAtMs: this.init.nowMs });
  }
}

function requireKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new ToolArgumentError('longterm', 'a long-term key must be a non-empty string');
}
