import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { v5 as uuidv5 } from 'uuid';
import { decodeErrorRecord, decodeToolIntent, decodeToolResult } from '#core';
import type { ErasureReport, EraseRequest, LongTermBackend } from '#longterm';
import { v1 } from '#proto';
import { encodeKeyToken, entityDigest, erasureScope, kvStreamName, kvSubject, type ErasureScope, type Topology } from '#routing';
import { encodePauseMarker, decodePauseMarker, listKvKeys } from '#transport';
import { ErasureIncomplete, ErasureTimedOut } from './erasure-errors.js';
import { StreamScrubber, type ScannedMessage } from './stream-scrubber.js';

/** The namespace of derived erasure request ids (uuid v5 over digest and request time). */
const ERASURE_REQUEST_NS = '6f0c5a34-55a8-4c53-9c62-6d1d0d3e8f21';

/** Erase-and-verify passes before an erasure gives up (something keeps writing the entity). */
const MAX_PASSES = 5;

/** How often the eraser re-reads the acknowledgements while it waits for them. */
const ACK_POLL_MS = 100;

/**
 * Time given to processes that hold back work without acknowledging (effectors) to see a new
 * pause before the first pass: their pause views are KV watches, updated within milliseconds.
 */
const PAUSE_SETTLE_MS = 500;

/** What the eraser works on. */
export interface EntityEraserDeps {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly topology: Topology;
  readonly erasures: KV;
  readonly members: KV;
  readonly effects: KV;
  /** The long-term backend this service owns; null when the tier is off. */
  readonly backend: LongTermBackend | null;
  /** Wall clock (request and completion times of the audit record). */
  readonly nowMs: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** How long to wait for every activator to acknowledge the pause before giving up (retryable). */
  readonly pauseTimeoutMs: number;
  readonly log: (message: string) => void;
}

/** One physical key of the entity: the key itself or one of its hot-key shards. */
interface PhysicalKey {
  readonly key: Uint8Array;
  readonly digest: string;
  readonly scope: ErasureScope;
}

/**
 * Erases one entity everywhere the runtime keeps it (seed 004): actor state of every agent
 * (working memory, replay cache, continuation, deferred events), its timer index entries, its
 * messages in every runtime stream (purged by subject where the subject carries the key,
 * scanned and securely deleted where it does not: intents, error records), the effector records
 * of its intents, and its long-term rows. In order:
 *
 * 1. pause: a marker per physical key in `AGENTS_ERASURES`; every activator stops starting
 *    activations of it, drops what it caches, and acknowledges once none runs; effectors stop
 *    claiming its intents and publishing its results;
 * 2. erase-and-verify passes until one finds nothing left (a result or a timer firing that was
 *    in flight lands in a place the next pass clears);
 * 3. an audit record (request id, key digest, counts, times: no content) on the audit stream,
 *    whose message id is the request id;
 * 4. resume: the markers are purged; messages published after the erasure began are new data and
 *    run normally.
 *
 * Crash anywhere: the markers stay, so the entity stays paused (nothing half-erased ever runs);
 * repeating the request completes it. A pause that is not acknowledged in time is lifted again
 * before anything is deleted ({@link ErasureTimedOut}, retryable). Other entities are never
 * touched: every filter names the key's own token, and scans delete only messages whose decoded
 * key is one of the entity's physical keys.
 */
export class EntityEraser {
  private readonly scrubber: StreamScrubber;

  constructor(private readonly deps: EntityEraserDeps) {
    this.scrubber = new StreamScrubber(deps.js, deps.jsm);
  }

  async erase(request: EraseRequest): Promise<ErasureReport> {
    const { deps } = this;
    const requestedAtMs = deps.nowMs();
    const digest = entityDigest(request.entityKey);
    const requestId = request.requestId ?? uuidv5(`${digest}|${requestedAtMs}`, ERASURE_REQUEST_NS);
    const keys = physicalKeys(deps.topology, request.entityKey, request.shards ?? 0);

    const fresh = await this.pause(keys, requestId, requestedAtMs);
    try {
      await this.awaitAcknowledgements(keys);
    } catch (error) {
      // Nothing is deleted yet: lift the pauses this request set, so the entity runs again.
      if (fresh) await this.resume(keys);
      throw error;
    }
    await deps.sleep(PAUSE_SETTLE_MS);

    const erased: Record<string, number> = {};
    let passes = 0;
    for (;;) {
      passes += 1;
      const found = await this.erasePass(keys, erased);
      if (found === 0 && passes > 1) break;
      if (passes >= MAX_PASSES) {
        throw new ErasureIncomplete(`entity ${digest.slice(0, 12)}… still had data after ${MAX_PASSES} passes; it stays paused, repeat the request`);
      }
    }

    const completedAtMs = deps.nowMs();
    const report: ErasureReport = { requestId, entityKeySha256: digest, requestedAtMs, completedAtMs, passes, erased };
    await this.audit(report, request.requestedBy ?? '');
    await this.resume(keys);
    deps.log(`erased entity ${digest.slice(0, 12)}… (${requestId}) in ${passes} passes: ${describe(erased)}`);
    return report;
  }

  /** Writes the pause markers; true when this request created them (false: resuming a crashed erasure). */
  private async pause(keys: readonly PhysicalKey[], requestId: string, requestedAtMs: number): Promise<boolean> {
    let fresh = true;
    for (const { digest } of keys) {
      const existing = await this.deps.erasures.get(digest);
      if (existing !== null && existing.operation === 'PUT' && decodePauseMarker(existing.value) !== undefined) {
        fresh = false;
        continue;
      }
      await this.deps.erasures.put(digest, encodePauseMarker({ requestId, requestedAtMs }));
    }
    return fresh;
  }

  /** Waits until every activator present has acknowledged every marker. */
  private async awaitAcknowledgements(keys: readonly PhysicalKey[]): Promise<void> {
    const { deps } = this;
    const deadline = deps.nowMs() + deps.pauseTimeoutMs;
    for (;;) {
      const members = await liveKeys(deps.jsm, deps.members, deps.topology.buckets.members);
      let missing: string | undefined;
      for (const { digest } of keys) {
        const acknowledged = new Set((await liveKeys(deps.jsm, deps.erasures, deps.topology.buckets.erasures, `${digest}.ack.>`)).map((key) => key.slice(`${digest}.ack.`.length)));
        missing = members.find((member) => !acknowledged.has(member));
        if (missing !== undefined) break;
      }
      if (missing === undefined) return;
      if (deps.nowMs() >= deadline) {
        throw new ErasureTimedOut(`activator ${missing} did not acknowledge the pause within ${deps.pauseTimeoutMs} ms; nothing was erased, retry`);
      }
      await deps.sleep(ACK_POLL_MS);
    }
  }

  /** One erase pass over every place; returns how many items it removed. */
  private async erasePass(keys: readonly PhysicalKey[], erased: Record<string, number>): Promise<number> {
    const { deps } = this;
    const { topology } = deps;
    const add = (place: string, n: number): number => {
      if (n > 0) erased[place] = (erased[place] ?? 0) + n;
      return n;
    };
    const isEntity = (key: Uint8Array): boolean => keys.some((k) => sameBytes(k.key, key));
    let found = 0;

    // Intent ids first: results on the ingest lanes and intents name them, and both are erased below.
    const intentIds = new Set<string>();
    for (const { scope } of keys) {
      for (const message of await this.scrubber.scan(topology.streams.ingest.name, `${topology.prefix}.results.*.${scope.token}`, () => true)) {
        const id = tryDecode(() => decodeToolResult(message.data).intentId);
        if (id !== undefined) intentIds.add(id);
      }
    }
    const intents = await this.scrubber.deleteMatching(topology.streams.intents.name, `${topology.prefix}.intents.>`, (message) => {
      const intent = tryDecode(() => decodeToolIntent(message.data));
      if (intent === undefined || !isEntity(intent.entityKey)) return false;
      intentIds.add(intent.intentId);
      return true;
    });
    found += add(topology.streams.intents.name, intents.length);

    for (const { scope } of keys) {
      for (const { stream, filter } of [...scope.streamPurges, ...scope.kvPurges]) found += add(stream, await this.scrubber.purge(stream, filter));
    }
    const errors = await this.scrubber.deleteMatching(topology.streams.errors.name, `${topology.prefix}.errors.>`, (message: ScannedMessage) => {
      const record = tryDecode(() => decodeErrorRecord(message.data));
      return record !== undefined && isEntity(record.entityKey);
    });
    found += add(topology.streams.errors.name, errors.length);

    const effectsStream = kvStreamName(topology.buckets.effects);
    for (const id of intentIds) found += add(effectsStream, await this.scrubber.purge(effectsStream, kvSubject(topology.buckets.effects, id)));

    if (deps.backend !== null) {
      for (const { key } of keys) found += add(`longterm:${deps.backend.kind}`, await deps.backend.eraseEntity(key));
    }
    return found;
  }

  private async audit(report: ErasureReport, requestedBy: string): Promise<void> {
    const audit = v1.ErasureAudit.encode({
      requestId: report.requestId,
      entityKeySha256: report.entityKeySha256,
      requestedAtMs: report.requestedAtMs,
      completedAtMs: report.completedAtMs,
      erased: Object.entries(report.erased)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([place, n]) => `${place}=${n}`),
      requestedBy,
    }).finish();
    await this.deps.js.publish(this.deps.topology.auditErasure, audit, { msgID: `erasure:${report.requestId}` });
  }

  /** Lifts the pauses: the markers and their acknowledgements are purged (they hold digests only). */
  private async resume(keys: readonly PhysicalKey[]): Promise<void> {
    const stream = kvStreamName(this.deps.topology.buckets.erasures);
    for (const { digest } of keys) {
      await this.deps.erasures.purge(digest);
      await this.scrubber.purge(stream, kvSubject(this.deps.topology.buckets.erasures, `${digest}.ack.>`));
    }
  }
}

/** The key and, when it is sharded, its shard keys `key#0 … key#<shards-1>` (the physical keys `shardKey` produces). */
function physicalKeys(topology: Topology, key: Uint8Array, shards: number): PhysicalKey[] {
  const all = [key, ...Array.from({ length: shards }, (_, i) => concat(key, new TextEncoder().encode(`#${i}`)))];
  return all.map((k) => ({ key: k, digest: entityDigest(k), scope: erasureScope(topology, encodeKeyToken(k)) }));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * The keys of `bucket` (matching `filter`) whose last message is a value, not a delete or purge
 * marker. Listed from the stream's subject index (`listKvKeys`), not with `kv.keys()`: the members
 * bucket is written every second by heartbeats, and there `kv.keys()` can stall on 2.9.
 */
async function liveKeys(jsm: JetStreamManager, kv: KV, bucket: string, filter = '>'): Promise<string[]> {
  const live: string[] = [];
  for (const key of await listKvKeys(jsm, bucket, filter)) if ((await kv.get(key))?.operation === 'PUT') live.push(key);
  return live;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function tryDecode<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}

function describe(erased: Readonly<Record<string, number>>): string {
  const parts = Object.entries(erased).map(([place, n]) => `${place}=${n}`);
  return parts.length === 0 ? 'nothing was stored' : parts.join(', ');
}
