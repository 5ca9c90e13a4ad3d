/**
 * `redis://…`: rows in per-(entity, agent) hashes, guarded and indexed by the Lua scripts of
 * `redis-scripts.ts` (one atomic script per batch, so a batch lands whole or not at all).
 * Commands fail fast while Redis is unreachable (no offline queue) and the client keeps
 * reconnecting in the background, so an outage surfaces as `LongTermUnavailable` at once and
 * ends by itself. Standalone Redis (or a single shard): erase and sweep derive key names in Lua.
 */
import type { Redis as RedisClient } from 'ioredis';
import { decodeLongTermRecord, entityKeyHex, isExpired, type LongTermRecord, type LongTermScope, type SearchOptions } from '#core';
import { prefixUpperBound } from '../key-order.js';
import { MAX_HISTORY_LENGTH, type LongTermBackend } from '../long-term-backend.js';
import { LongTermBackendKind } from '../long-term-backend-kind.js';
import { rowFromBytes, rowFromRecord, type LongTermRow } from '../long-term-row.js';
import type { LongTermUri } from '../long-term-uri.js';
import { assertEntityKey, assertEpochMs, assertKeyLookup, assertLimit, assertPrefixSearch, assertRow } from '../long-term-validation.js';
import { walkSupersedeChain } from '../lifecycle/supersede-chain.js';
import { UpsertVerdict } from '../upsert-verdict.js';
import { asUnavailable, guarded } from './backend-failure.js';
import { ERASE_SCRIPT, SEARCH_SCRIPT, SWEEP_SCRIPT, UPSERT_SCRIPT } from './redis-scripts.js';

type RedisUri = Extract<LongTermUri, { kind: 'redis' }>;
type Arg = string | Buffer | number;

/** The scripts as ioredis commands (`defineCommand`: EVALSHA with an EVAL fallback). */
interface ScriptCommands {
  ltmUpsert(numKeys: number, ...args: Arg[]): Promise<number[]>;
  ltmSearchBuffer(...args: Arg[]): Promise<Buffer[]>;
  ltmErase(...args: Arg[]): Promise<number>;
  ltmSweep(...args: Arg[]): Promise<number>;
}

/** How long connecting may take at start-up and how long one command may run. */
const CONNECT_TIMEOUT_MS = 2_000;
const COMMAND_TIMEOUT_MS = 5_000;

const buf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The Redis backend. Build it with {@link RedisLongTermBackend.open} (imports ioredis lazily). */
export class RedisLongTermBackend implements LongTermBackend {
  readonly kind = LongTermBackendKind.Redis;
  readonly target: string;
  private readonly scripts: ScriptCommands;
  private closed = false;

  private constructor(
    private readonly redis: RedisClient,
    private readonly uri: RedisUri,
    private readonly rawUri: string,
  ) {
    this.target = uri.redacted;
    this.scripts = redis as unknown as ScriptCommands;
  }

  /**
   * Connects to `uri` and registers the scripts.
   *
   * @throws {LongTermUnavailable} when Redis cannot be reached within 2 s.
   */
  static async open(uri: RedisUri, rawUri: string): Promise<RedisLongTermBackend> {
    const { Redis } = await import('ioredis');
    const redis = new Redis(uri.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
    });
    // Failures surface on the commands (as LongTermUnavailable); the event only needs a listener.
    redis.on('error', () => undefined);
    redis.defineCommand('ltmUpsert', { lua: UPSERT_SCRIPT });
    redis.defineCommand('ltmSearch', { lua: SEARCH_SCRIPT, numberOfKeys: 3, readOnly: true });
    redis.defineCommand('ltmErase', { lua: ERASE_SCRIPT, numberOfKeys: 2 });
    redis.defineCommand('ltmSweep', { lua: SWEEP_SCRIPT, numberOfKeys: 1 });
    try {
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      throw asUnavailable(uri.redacted, rawUri, 'connect', error);
    }
    return new RedisLongTermBackend(redis, uri, rawUri);
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    return this.run('load', () => this.loadLive(scope, key, nowMs));
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const upper = prefix === '' ? undefined : prefixUpperBound(prefix);
    const min = prefix === '' ? '-' : `[${prefix}`;
    const max = upper === undefined ? '+' : `(${upper}`;
    const base = this.scopeKey(scope.entityKey, scope.agent);
    const found = await this.run('search', () =>
      this.scripts.ltmSearchBuffer(`${base}:keys`, `${base}:meta`, `${base}:rec`, min, max, nowMs, options.limit, options.includeSuperseded === true ? '1' : '0'),
    );
    return found.map((bytes) => decodeLongTermRecord(new Uint8Array(bytes)));
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRows(records.map(rowFromRecord));
  }

  async applyRows(rows: readonly LongTermRow[]): Promise<UpsertVerdict[]> {
    rows.forEach(assertRow);
    if (rows.length === 0) return [];
    const keys: string[] = [this.expiryKey()];
    const args: Arg[] = [rows.length];
    for (const row of rows) {
      const hex = entityKeyHex(row.entityKey);
      const base = this.scopeKey(row.entityKey, row.agent);
      keys.push(`${this.uri.namespace}:e:${hex}:agents`, `${base}:rec`, `${base}:meta`, `${base}:keys`, `${base}:sup`);
      args.push(row.agent, row.key, row.seq, row.expiresAtMs, row.supersededBy, buf(row.bytes), `${hex}|${row.agent}|${row.key}`);
    }
    const verdicts = await this.run('upsert', () => this.scripts.ltmUpsert(keys.length, ...keys, ...args));
    return verdicts.map((applied) => (applied === 1 ? UpsertVerdict.Applied : UpsertVerdict.Stale));
  }

  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    const base = this.scopeKey(scope.entityKey, scope.agent);
    return this.run('history', () =>
      walkSupersedeChain(
        key,
        {
          load: (k) => this.loadLive(scope, k, nowMs),
          predecessors: async (k) => {
            const members = await this.redis.zrangebylex(`${base}:sup`, `[${k}\u0000`, `(${k}\u0001`);
            if (members.length === 0) return [];
            const keys = members.map((member) => member.slice(member.indexOf('\u0000') + 1));
            const stored = await this.redis.hmgetBuffer(`${base}:rec`, ...keys);
            return stored.flatMap((bytes) => {
              if (bytes === null) return [];
              const record = decodeLongTermRecord(new Uint8Array(bytes));
              return isExpired(record, nowMs) ? [] : [record];
            });
          },
        },
        MAX_HISTORY_LENGTH,
      ),
    );
  }

  async eraseEntity(entityKey: Uint8Array): Promise<number> {
    assertEntityKey(entityKey);
    const hex = entityKeyHex(entityKey);
    const ns = this.uri.namespace;
    return this.run('erase', () => this.scripts.ltmErase(this.expiryKey(), `${ns}:e:${hex}:agents`, `${ns}:e:${hex}:a:`, `${hex}|`));
  }

  async sweepExpired(nowMs: number, limit: number): Promise<number> {
    assertEpochMs(nowMs, 'nowMs');
    assertLimit(limit);
    return this.run('sweep', () => this.scripts.ltmSweep(this.expiryKey(), this.uri.namespace, nowMs, limit));
  }

  async *exportRows(batchSize = 500): AsyncIterable<readonly LongTermRow[]> {
    assertLimit(batchSize);
    const ns = this.uri.namespace;
    let cursor = '0';
    let batch: LongTermRow[] = [];
    const seen = new Set<string>(); // SCAN may return a key more than once
    do {
      const [next, agentSets] = await this.run('export', () => this.redis.scan(cursor, 'MATCH', `${ns}:e:*:agents`, 'COUNT', 200));
      cursor = next;
      for (const agentSet of agentSets) {
        if (seen.has(agentSet)) continue;
        seen.add(agentSet);
        const hex = agentSet.slice(`${ns}:e:`.length, -':agents'.length);
        const agents = await this.run('export', () => this.redis.smembers(agentSet));
        for (const agent of agents.sort()) {
          const stored = await this.run('export', () => this.redis.hgetallBuffer(`${ns}:e:${hex}:a:${agent}:rec`));
          for (const bytes of Object.values(stored)) {
            batch.push(rowFromBytes(new Uint8Array(bytes)));
            if (batch.length >= batchSize) {
              yield batch;
              batch = [];
            }
          }
        }
      }
    } while (cursor !== '0');
    if (batch.length > 0) yield batch;
  }

  async importRows(rows: readonly LongTermRow[]): Promise<number> {
    return (await this.applyRows(rows)).filter((verdict) => verdict === UpsertVerdict.Applied).length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect(); // already down: nothing to flush
    }
  }

  private async loadLive(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    const bytes = await this.redis.hgetBuffer(`${this.scopeKey(scope.entityKey, scope.agent)}:rec`, key);
    if (bytes === null) return undefined;
    const record = decodeLongTermRecord(new Uint8Array(bytes));
    return isExpired(record, nowMs) ? undefined : record;
  }

  private scopeKey(entityKey: Uint8Array, agent: string): string {
    return `${this.uri.namespace}:e:${entityKeyHex(entityKey)}:a:${agent}`;
  }

  private expiryKey(): string {
    return `${this.uri.namespace}:expiry`;
  }

  private run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return guarded(this.target, this.rawUri, operation, () => {
      if (this.closed) throw new Error('the Redis long-term backend is closed');
      return work();
    });
  }
}
