import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { indexCovers, sameTimers, type TimerDoc, type TimerIndex, type TimerOwner } from '#core';
import { decodeKeyToken, timerIndexKey, type Topology } from '#routing';
import { listKvKeys, PipelinedKvReads, PipelinedKvWrites, type PubAckPipeline } from '#transport';
import { decodeTimerIndexEntry, encodeTimerIndexEntry, type TimerIndexEntry } from './timer-index-entry.js';
import type { TimerScheduler } from './timer-scheduler.js';

/** How long a key left without timers keeps its index entry before it is deleted (decision 0068). */
export const DEFAULT_INDEX_DELETE_DELAY_MS = 5_000;

/** What the timer index needs besides the bucket: the scheduler's clock, and the delete delay. */
export interface KvTimerIndexOptions {
  /** Wall-clock now, from the same clock the partition schedulers fire by. */
  readonly nowMs: () => number;
  /** {@link DEFAULT_INDEX_DELETE_DELAY_MS} unless set. */
  readonly deleteDelayMs?: number;
}

/**
 * What `AGENTS_TIMERS` holds for a key, as far as this process wrote or read it: the timers, the
 * entry's revision (what a delete is conditioned on), and whether this process wrote it itself.
 * Only an entry of its own covers later timers: one loaded from the index may already be gone (an
 * earlier owner's delete still landing after the load), so a process writes a loaded key's entry
 * once before it relies on it.
 */
interface IndexedEntry {
  readonly timers: readonly TimerDoc[];
  readonly revision: number;
  readonly own: boolean;
}

/** A key left without timers, since when (its entry is deleted once `deleteDelayMs` has passed). */
interface PendingDelete {
  readonly owner: TimerOwner;
  readonly sinceMs: number;
}

/**
 * The timer index over KV `AGENTS_TIMERS`, feeding the owning partition's scheduler. Writes happen
 * only when a commit's timers are not covered by what the key's entry already holds (decision
 * 0068: an entry is a lower bound, see {@link indexCovers}), so the fast path (no timers) costs
 * nothing extra and a key that suspends again and again keeps one entry instead of writing and
 * deleting it per round trip.
 *
 * A key whose commit leaves it without timers keeps its entry for `deleteDelayMs` before the
 * delete, so its next suspension (usually the next event) finds it still covered. The delete is
 * conditioned on the revision this process wrote, so it never removes an entry another owner wrote
 * since; a key that suspends again within the delay cancels it (a delete in flight is awaited
 * first). A crash, a partition release or a failed delete leaves the entry behind: it fires at its
 * due time, the actor ignores the firing and the index is reconciled (deleted) then.
 *
 * Entries are written and deleted through {@link PipelinedKvWrites}, as the KV client would write
 * them but on the pipelined publisher the state writes use (decision 0065): no request object,
 * timer or `RequestError` per write. A write whose acknowledgement does not come throws, and the
 * element is retried like any failed commit step; both writes are idempotent, so a retry or a
 * redelivery converges on the same entry.
 */
export class KvTimerIndex implements TimerIndex {
  /** Each key's entry in `AGENTS_TIMERS`, as far as this process wrote or read it. */
  private readonly written = new Map<string, IndexedEntry>();
  /** What the partition schedulers were last given per key. */
  private readonly scheduled = new Map<string, readonly TimerDoc[]>();
  private readonly schedulers = new Map<number, TimerScheduler>();
  /** Keys left without timers, oldest first, whose entries are deleted once `deleteDelayMs` has passed. */
  private readonly pendingDeletes = new Map<string, PendingDelete>();
  /** Deletes under way: a key's next index call waits for its delete first. */
  private readonly deleting = new Map<string, Promise<void>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly deleteDelayMs: number;
  /** Entry writes and deletes, on the pipelined publisher. */
  private readonly writes: PipelinedKvWrites;

  constructor(
    private readonly kv: KV,
    private readonly topology: Topology,
    /** Lists the partition's index keys (one request; `kv.keys()` can stall, see `listKvKeys`). */
    private readonly jsm: JetStreamManager,
    /** The connection's pipelined publisher: entry writes and deletes. */
    acks: PubAckPipeline,
    private readonly options: KvTimerIndexOptions,
  ) {
    this.writes = new PipelinedKvWrites(new PipelinedKvReads(kv, acks, topology.buckets.timers), acks, topology.buckets.timers);
    this.deleteDelayMs = options.deleteDelayMs ?? DEFAULT_INDEX_DELETE_DELAY_MS;
  }

  /** Attaches a partition's scheduler (on acquiring the partition) and loads its index into it. */
  async attach(partition: number, scheduler: TimerScheduler): Promise<number> {
    this.schedulers.set(partition, scheduler);
    const prefix = `p${String(partition).padStart(4, '0')}.`;
    // Not `kv.keys()`: it creates a consumer, which in a cluster that just lost a server took longer
    // than the request timeout and failed the acquisition (observed in the cluster chaos suite), and
    // it can stall on 2.9. Keys whose last message is a delete marker are skipped below.
    const keys = await listKvKeys(this.jsm, this.topology.buckets.timers, `${prefix}>`);
    let loaded = 0;
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry === null || entry.operation !== 'PUT') continue;
      const decoded = decodeTimerIndexEntry(key.slice(prefix.length), entry.value);
      if (decoded === undefined) continue;
      this.written.set(decoded.owner.stateKey, { timers: decoded.timers, revision: entry.revision, own: false });
      this.scheduled.set(decoded.owner.stateKey, decoded.timers);
      scheduler.update(decoded.owner, decoded.timers);
      loaded += 1;
    }
    return loaded;
  }

  /** Detaches a partition's scheduler (on releasing the partition). */
  detach(partition: number): void {
    this.schedulers.get(partition)?.stop();
    this.schedulers.delete(partition);
    for (const key of [...this.scheduled.keys()]) if (this.partitionOfStateKey(key) === partition) this.scheduled.delete(key);
    // The next owner loads these entries and reconciles them when they fire.
    for (const key of [...this.pendingDeletes.keys()]) if (this.partitionOfStateKey(key) === partition) this.pendingDeletes.delete(key);
  }

  async beforeCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    if (timers.length === 0) return;
    await this.settle(owner.stateKey);
    // The entry this key kept for a while (it was left without timers) covers this suspension.
    this.pendingDeletes.delete(owner.stateKey);
    const entry = this.written.get(owner.stateKey);
    const known = entry?.timers ?? [];
    if (entry?.own === true && indexCovers(known, timers, this.options.nowMs())) return;
    const union = [...known.filter((k) => !timers.some((t) => t.timerId === k.timerId && t.dueAtMs === k.dueAtMs)), ...timers];
    if (entry?.own === true && sameTimers(known, union)) return;
    await this.write({ owner, timers: union });
  }

  async afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    await this.settle(owner.stateKey);
    if (timers.length === 0) {
      // Kept for the key's next suspension; deleted after the delay unless one comes.
      if (this.written.has(owner.stateKey)) this.deferDelete(owner);
      else this.forgetSchedule(owner);
      return;
    }
    this.pendingDeletes.delete(owner.stateKey);
    const now = this.options.nowMs();
    // Entries covering the timers may stay, indexed and scheduled: they fire first, the actor
    // ignores the firing and the index is reconciled then. This keeps a timer that moves later on
    // every commit (the idle TTL) and a key that suspends again free of index writes and schedule churn.
    const entry = this.written.get(owner.stateKey);
    if (indexCovers(entry?.own === true ? entry.timers : [], timers, now) && indexCovers(this.scheduled.get(owner.stateKey) ?? [], timers, now)) return;
    await this.reconcile(owner, timers);
  }

  async reconcile(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    await this.settle(owner.stateKey);
    this.pendingDeletes.delete(owner.stateKey);
    const known = this.written.get(owner.stateKey);
    if (timers.length === 0) {
      if (known !== undefined) {
        await this.writes.delete(timerIndexKey(this.partitionOf(owner), owner.stateKey));
        this.written.delete(owner.stateKey);
      }
    } else if (known === undefined || !known.own || !sameTimers(known.timers, timers)) {
      await this.write({ owner, timers });
    }
    if (timers.length === 0) this.scheduled.delete(owner.stateKey);
    else this.scheduled.set(owner.stateKey, timers);
    this.schedulers.get(this.partitionOf(owner))?.update(owner, timers);
  }

  /** Stops the delete timer; entries still waiting stay behind (they fire and are reconciled then). */
  close(): void {
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.pendingDeletes.clear();
  }

  /**
   * Re-reads from the index the keys matching `matches` that this process knows of, replacing
   * what their schedulers hold: after an erasure the entries are gone and the timers are dropped;
   * after an aborted one they are scheduled again (firings held back during the pause fire now).
   */
  async refresh(matches: (stateKey: string) => boolean): Promise<void> {
    const stateKeys = new Set([...this.scheduled.keys(), ...this.written.keys()].filter(matches));
    for (const stateKey of stateKeys) await this.settle(stateKey);
    for (const stateKey of stateKeys) {
      const dot = stateKey.indexOf('.');
      const owner: TimerOwner = { stateKey, agent: stateKey.slice(0, dot), entityKey: decodeKeyToken(stateKey.slice(dot + 1)) };
      const partition = this.partitionOf(owner);
      this.written.delete(stateKey);
      this.scheduled.delete(stateKey);
      this.pendingDeletes.delete(stateKey);
      const entry = await this.kv.get(timerIndexKey(partition, stateKey));
      const decoded = entry !== null && entry.operation === 'PUT' ? decodeTimerIndexEntry(stateKey, entry.value) : undefined;
      if (decoded !== undefined) {
        this.written.set(stateKey, { timers: decoded.timers, revision: entry!.revision, own: false });
        this.scheduled.set(stateKey, decoded.timers);
      }
      this.schedulers.get(partition)?.update(decoded?.owner ?? owner, decoded?.timers ?? []);
    }
  }

  private async write(entry: TimerIndexEntry): Promise<void> {
    const revision = await this.writes.put(timerIndexKey(this.partitionOf(entry.owner), entry.owner.stateKey), encodeTimerIndexEntry(entry));
    this.written.set(entry.owner.stateKey, { timers: entry.timers, revision, own: true });
  }

  /** Waits for a delete of `stateKey` under way, so no call decides on an entry about to vanish. */
  private async settle(stateKey: string): Promise<void> {
    const inFlight = this.deleting.get(stateKey);
    if (inFlight !== undefined) await inFlight;
  }

  private deferDelete(owner: TimerOwner): void {
    // Re-inserted, so the map stays ordered by the time each key was left without timers.
    this.pendingDeletes.delete(owner.stateKey);
    this.pendingDeletes.set(owner.stateKey, { owner, sinceMs: this.options.nowMs() });
    this.armFlush();
  }

  private armFlush(): void {
    if (this.flushTimer !== undefined || this.pendingDeletes.size === 0) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushDue();
      this.armFlush();
    }, this.deleteDelayMs);
    this.flushTimer.unref();
  }

  /** Starts the deletes of every key left without timers for `deleteDelayMs`. */
  private flushDue(): void {
    const cutoff = this.options.nowMs() - this.deleteDelayMs;
    for (const [stateKey, pending] of this.pendingDeletes) {
      if (pending.sinceMs > cutoff) break;
      this.pendingDeletes.delete(stateKey);
      const done = this.deleteEntry(pending.owner).finally(() => this.deleting.delete(stateKey));
      this.deleting.set(stateKey, done);
    }
  }

  /**
   * Deletes a key's entry if it still holds the revision this process wrote, then drops its
   * schedule. A conflict (another owner wrote since) or a failure leaves the entry: it fires and
   * is reconciled then.
   */
  private async deleteEntry(owner: TimerOwner): Promise<void> {
    try {
      await this.writes.delete(timerIndexKey(this.partitionOf(owner), owner.stateKey), this.written.get(owner.stateKey)?.revision);
    } catch {
      // Left behind, still known and scheduled: it fires, the actor ignores it and reconcile deletes it.
      return;
    }
    this.written.delete(owner.stateKey);
    this.forgetSchedule(owner);
  }

  private forgetSchedule(owner: TimerOwner): void {
    if (!this.scheduled.has(owner.stateKey)) return;
    this.scheduled.delete(owner.stateKey);
    this.schedulers.get(this.partitionOf(owner))?.update(owner, []);
  }

  private partitionOf(owner: TimerOwner): number {
    return this.partitionOfStateKey(owner.stateKey);
  }

  private partitionOfStateKey(stateKey: string): number {
    return this.topology.partitionOf(stateKey.slice(stateKey.indexOf('.') + 1));
  }
}
