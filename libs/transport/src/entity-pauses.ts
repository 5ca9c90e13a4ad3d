import { createHash } from 'node:crypto';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { listKvKeys } from './kv-keys.js';

/**
 * What an erasure writes under `<digest>` in `AGENTS_ERASURES` while it runs: enough to find the
 * request again after a crash, never the key itself (the digest names the entity).
 */
export interface PauseMarker {
  /** The erasure request that paused the entity. */
  readonly requestId: string;
  /** When the erasure was requested (epoch ms, the eraser's clock). */
  readonly requestedAtMs: number;
}

/** Called when this process sees an entity paused (also for pauses found at start) or resumed. */
export type PauseListener = (event: { readonly digest: string; readonly paused: boolean }) => void;

/** How often the watched view is re-listed, so a watch that silently lost an update heals. */
const RESYNC_MS = 10_000;

const ACK = 'ack';
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * The KV key of an acknowledgement of `digest`'s pause by activator `memberId`: the member saw the
 * pause, dropped what it cached of the entity, and no activation of it runs there. The eraser
 * waits for one per member of `AGENTS_MEMBERS`.
 */
export function pauseAckKey(digest: string, memberId: string): string {
  return `${digest}.${ACK}.${memberId}`;
}

/**
 * The view every activator and effector keeps of the entities paused by erasures in progress
 * (`AGENTS_ERASURES`, one marker per entity digest). A paused entity runs no activation and no
 * tool call: the holder checks {@link EntityPauses.isPaused} right before starting one and leaves
 * the message unacknowledged instead (the eraser purges it, or it runs after the resume).
 *
 * The view is a watch plus a periodic re-list, ordered by KV revision, so a late initial read
 * never resurrects a pause a watch already saw lifted. It is complete before {@link open}
 * resolves: a process that starts consuming afterwards never runs an activation of an entity that
 * was paused before it started. On a crash nothing is lost: the markers live in KV; a new process
 * reads them at start and acknowledges them again.
 */
export class EntityPauses {
  /** digest → the revision of its latest marker operation, and whether that operation paused it. */
  private readonly entries = new Map<string, { readonly revision: number; readonly paused: boolean }>();
  private pausedCount = 0;
  private stopped = false;
  private resyncTimer: NodeJS.Timeout | undefined;
  private watching: Promise<void> | undefined;
  private stopWatch: (() => void) | undefined;

  private constructor(
    private readonly kv: KV,
    private readonly listener: PauseListener,
    private readonly listKeys: () => Promise<string[]>,
  ) {}

  /**
   * Opens the view: starts the watch, then lists the current markers, and resolves once both are
   * applied. `listener` is called for every pause found and every change seen afterwards. The
   * markers are listed from the bucket stream's subject index (`jsm`, `bucket`: see `listKvKeys`),
   * never with `kv.keys()`, which can stall on 2.9 and would then hold up a service's start.
   */
  static async open(kv: KV, jsm: JetStreamManager, bucket: string, listener: PauseListener = () => undefined): Promise<EntityPauses> {
    const pauses = new EntityPauses(kv, listener, () => listKvKeys(jsm, bucket, '*'));
    await pauses.startWatch();
    await pauses.resync();
    pauses.resyncTimer = setInterval(() => {
      pauses.resync().catch(() => undefined);
    }, RESYNC_MS);
    pauses.resyncTimer.unref();
    return pauses;
  }

  /** True while an erasure holds the entity whose digest is `digest`. */
  isPaused(digest: string): boolean {
    return this.entries.get(digest)?.paused === true;
  }

  /** True while an erasure holds the entity `key` (hashes only when some entity is paused). */
  isKeyPaused(key: Uint8Array): boolean {
    if (this.pausedCount === 0) return false;
    return this.isPaused(createHash('sha256').update(key).digest('hex'));
  }

  /** True while some entity is paused (cheap: checked before every activation). */
  get anyPaused(): boolean {
    return this.pausedCount > 0;
  }

  /** Digests of the entities paused now. */
  get paused(): string[] {
    return [...this.entries].filter(([, e]) => e.paused).map(([digest]) => digest);
  }

  /** Stops watching. Idempotent. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer !== undefined) clearInterval(this.resyncTimer);
    this.stopWatch?.();
    await this.watching;
  }

  private async startWatch(): Promise<void> {
    const watcher = await this.kv.watch({ key: '*', include: 'updates' });
    this.stopWatch = () => watcher.stop();
    this.watching = (async () => {
      for await (const entry of watcher) this.apply(entry);
    })().catch(() => undefined);
  }

  private async resync(): Promise<void> {
    if (this.stopped) return;
    const keys = await this.listKeys();
    const listed = new Set(keys);
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry !== null) this.apply(entry);
    }
    // A marker gone from the listing was purged (its history with it): lift it.
    for (const [digest, state] of [...this.entries]) {
      if (state.paused && !listed.has(digest)) this.set(digest, state.revision, false);
    }
  }

  private apply(entry: KvEntry): void {
    if (entry.key.includes('.')) return;
    const known = this.entries.get(entry.key);
    if (known !== undefined && known.revision >= entry.revision) return;
    this.set(entry.key, entry.revision, entry.operation === 'PUT' && decodePauseMarker(entry.value) !== undefined);
  }

  private set(digest: string, revision: number, paused: boolean): void {
    const was = this.entries.get(digest)?.paused === true;
    this.entries.set(digest, { revision, paused });
    if (was === paused) return;
    this.pausedCount += paused ? 1 : -1;
    this.listener({ digest, paused });
  }
}

/** Bytes of a pause marker (JSON with a fixed key order). */
export function encodePauseMarker(marker: PauseMarker): Uint8Array {
  return utf8.encode(JSON.stringify({ requestId: marker.requestId, requestedAtMs: marker.requestedAtMs }));
}

/** A pause marker, or undefined for bytes this binary did not write. */
export function decodePauseMarker(bytes: Uint8Array): PauseMarker | undefined {
  try {
    const value = JSON.parse(fromUtf8.decode(bytes)) as Partial<PauseMarker>;
    if (typeof value.requestId !== 'string' || typeof value.requestedAtMs !== 'number') return undefined;
    return { requestId: value.requestId, requestedAtMs: value.requestedAtMs };
  } catch {
    return undefined;
  }
}
