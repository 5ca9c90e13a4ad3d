/**
 * The activator's side of the memory-store service: `LongTermStore` over NATS request/reply
 * (`<prefix>.memory.<op>`, the JSON protocol of `memory-protocol.ts`). Arguments are validated and
 * records encoded before any I/O. Every transport failure — a timeout, no memory-store replica
 * serving, a closed connection — and every retryable error response rejects with
 * `LongTermUnavailable`; a non-retryable response rejects with `LongTermRequestRefused`.
 */
import { headers as natsHeaders, NoRespondersError, RequestError, TimeoutError, type NatsConnection } from '@nats-io/transport-node';
import { decodeLongTermRecord, ensureError, type HeaderDoc, LongTermUnavailable, type LongTermRecord, type LongTermScope, type LongTermStore, type SearchOptions } from '#core';
import type { Topology } from '#routing';
import { LongTermRequestRefused } from '../errors.js';
import { rowFromRecord } from '../long-term-row.js';
import { assertKeyLookup, assertPrefixSearch } from '../long-term-validation.js';
import { decodeMemoryResponse, encodeMemoryRequest, MemoryProtocolError, type MemoryRequest, type MemoryResults } from '../protocol/memory-protocol.js';
import { MemoryOp } from '../protocol/memory-op.js';
import type { UpsertVerdict } from '../upsert-verdict.js';

/** Options of {@link NatsLongTermStore}. */
export interface NatsLongTermStoreOptions {
  /** How long one request may wait for its reply (default 7 500 ms: above the service's 5 s deadline). */
  readonly timeoutMs?: number;
  /**
   * Headers to send with each request, read once per operation, synchronously when it is called
   * (before its first await; every batch of a split upsert carries the same): the activator passes
   * the context its `longterm.flush` span makes active around the call (`traceparent`), so the
   * memory-store's span joins the activation's trace. Nothing here changes what a request does; a
   * retried operation carries the retry's context.
   */
  readonly requestHeaders?: () => readonly HeaderDoc[];
  /**
   * The largest request body; larger upsert batches are split into several requests, each
   * applied atomically. Default: the server's `max_payload` less 4 KiB of headroom.
   */
  readonly maxRequestBytes?: number;
}

/** The default request timeout. */
export const DEFAULT_LONG_TERM_TIMEOUT_MS = 7_500;

/**
 * The long-term tier through the memory-store service.
 *
 * On retry / replay / crash: `upsert` is safe to repeat — the service applies seq-guarded
 * upserts, so a repeated flush converges on identical rows and a `LongTermUnavailable` after a
 * timeout (outcome unknown) is resolved by retrying. A batch split over several requests (only
 * when it exceeds `maxRequestBytes`) may land partially before a failure; the retry re-applies
 * the landed part idempotently.
 *
 * @example
 * ```ts
 * const store = new NatsLongTermStore(nc, topology, { timeoutMs: 5_000 });
 * await store.upsert([record]);
 * const recent = await store.search({ entityKey, agent: 'support' }, 'case/', nowMs, { limit: 20 });
 * ```
 */
export class NatsLongTermStore implements LongTermStore {
  private readonly timeoutMs: number;
  private readonly maxRequestBytes: number | undefined;
  private readonly requestHeaders: (() => readonly HeaderDoc[]) | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: Pick<Topology, 'memory'>,
    options: NatsLongTermStoreOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_LONG_TERM_TIMEOUT_MS;
    this.maxRequestBytes = options.maxRequestBytes;
    this.requestHeaders = options.requestHeaders;
  }

  async load(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord | undefined> {
    assertKeyLookup(scope, key, nowMs);
    const { record } = await this.call(MemoryOp.Load, { op: MemoryOp.Load, scope, key, nowMs });
    return record === null ? undefined : decodeLongTermRecord(record);
  }

  async search(scope: LongTermScope, prefix: string, nowMs: number, options: SearchOptions): Promise<LongTermRecord[]> {
    assertPrefixSearch(scope, prefix, nowMs, options.limit);
    const { records } = await this.call(MemoryOp.Search, {
      op: MemoryOp.Search,
      scope,
      prefix,
      nowMs,
      limit: options.limit,
      includeSuperseded: options.includeSuperseded === true,
    });
    return records.map(decodeLongTermRecord);
  }

  async upsert(records: readonly LongTermRecord[]): Promise<void> {
    await this.applyRecords(records);
  }

  /** Like `upsert`, and reports each record's verdict (`applied` or `stale`), in order. */
  async applyRecords(records: readonly LongTermRecord[]): Promise<UpsertVerdict[]> {
    const encoded = records.map((record) => rowFromRecord(record).bytes);
    const verdicts: UpsertVerdict[] = [];
    const extra = this.requestHeaders?.() ?? [];
    for (const batch of this.batches(encoded)) {
      const result = await this.call(MemoryOp.Upsert, { op: MemoryOp.Upsert, records: batch }, extra);
      verdicts.push(...result.verdicts);
    }
    return verdicts;
  }

  /** The supersede chain through `key` (see `LongTermBackend.history`). */
  async history(scope: LongTermScope, key: string, nowMs: number): Promise<LongTermRecord[]> {
    assertKeyLookup(scope, key, nowMs);
    const { records } = await this.call(MemoryOp.History, { op: MemoryOp.History, scope, key, nowMs });
    return records.map(decodeLongTermRecord);
  }

  /** `extra`: the operation's request headers, read when it was called (see `requestHeaders`). */
  private async call<O extends MemoryOp>(op: O, request: MemoryRequest & { op: O }, extra: readonly HeaderDoc[] = this.requestHeaders?.() ?? []): Promise<MemoryResults[O]> {
    const subject = this.subjects.memory(op);
    let reply;
    try {
      const h = extra.length === 0 ? undefined : natsHeaders();
      for (const { name, value } of extra) h?.set(name, value);
      reply = await this.nc.request(subject, encodeMemoryRequest(request), { timeout: this.timeoutMs, ...(h === undefined ? {} : { headers: h }) });
    } catch (thrown) {
      throw new LongTermUnavailable(`long-term ${op}: ${describeRequestFailure(thrown, subject, this.timeoutMs)}`, { cause: thrown });
    }
    let response;
    try {
      response = decodeMemoryResponse(op, reply.data);
    } catch (thrown) {
      const error = ensureError(thrown);
      throw new LongTermRequestRefused(error instanceof MemoryProtocolError ? error.code : 'bad_response', `long-term ${op}: ${error.message}`, { cause: error });
    }
    if (response.ok) return response.result;
    const { code, message, retryable } = response.error;
    if (retryable) throw new LongTermUnavailable(`long-term ${op}: memory-store answered ${code}: ${message}`);
    throw new LongTermRequestRefused(code, `long-term ${op}: memory-store refused the request (${code}): ${message}`);
  }

  /** Splits encoded records into request-sized batches (base64 grows them by a third). */
  private *batches(encoded: readonly Uint8Array[]): Iterable<Uint8Array[]> {
    const budget = this.maxRequestBytes ?? Math.max(64 * 1024, (this.nc.info?.max_payload ?? 1024 * 1024) - 4 * 1024);
    let batch: Uint8Array[] = [];
    let size = 64;
    for (const bytes of encoded) {
      const cost = Math.ceil(bytes.byteLength / 3) * 4 + 3;
      if (batch.length > 0 && size + cost > budget) {
        yield batch;
        batch = [];
        size = 64;
      }
      batch.push(bytes);
      size += cost;
    }
    if (batch.length > 0) yield batch;
  }
}

function describeRequestFailure(thrown: unknown, subject: string, timeoutMs: number): string {
  const error = ensureError(thrown);
  if (error instanceof NoRespondersError || (error instanceof RequestError && error.isNoResponders())) return `no memory-store replica is serving ${subject}`;
  if (error instanceof TimeoutError || error.cause instanceof TimeoutError) return `no reply on ${subject} within ${timeoutMs} ms`;
  return `request on ${subject} failed: ${error.message}`;
}
