import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { indexCovers, sameTimers, type TimerDoc, type TimerIndex, type TimerOwner } from '#core';
import { decodeKeyToken, timerIndexKey, type Topology } from '#routing';
import { listKvKeys, PipelinedKvWrites, type PubAckPipeline } from '#transport';
import { decodeTimerIndexEntry, encodeTimerIndexEntry, type TimerIndexEntry } from './timer-index-entry.js';
import type { TimerScheduler } from './timer-scheduler.js';

/**
 * The timer index over KV `AGENTS_TIMERS`, feeding the owning partition's scheduler. Writes happen
 * only when a commit changes a key's timers, so the fast path (no timers) costs nothing extra.
 *
 * Entries are written and deleted through {@link PipelinedKvWrites}, as the KV client would write
 * them but on the pipelined publisher the state writes use (decision 0065): no request object,
 * timer or `RequestError` per write. A write whose acknowledgement does not come throws, and the
 * element is retried like any failed commit step; both writes are idempotent, so a retry or a
 * redelivery converges on the same entry.
 */
export class KvTimerIndex implements TimerIndex {
  /** What `AGENTS_TIMERS` holds per key (as far as this process wrote or read it). */
  private readonly written = new Map<string, readonly TimerDoc[]>();
  /** What the partition schedulers were last given per key. */
  private readonly scheduled = new Map<string, readonly TimerDoc[]>();
  private readonly schedulers = new Map<number, TimerScheduler>();
  /** Entry writes and deletes, on the pipelined publisher. */
  private readonly writes: PipelinedKvWrites;

  constructor(
    private readonly kv: KV,
    private readonly topology: Topology,
    /** Lists the partition's index keys (one request; `kv.keys()` can stall, see `listKvKeys`). */
    private readonly jsm: JetStreamManager,
    /** The connection's pipelined publisher: entry writes and deletes. */
    acks: PubAckPipeline,
  ) {
    this.writes = new PipelinedKvWrites(kv, acks, topology.buckets.timers);
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
      this.written.set(decoded.owner.stateKey, decoded.timers);
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
    for (const key of [...this.scheduled.keys()]) if (this.partitionOf({ stateKey: key, agent: '', entityKey: new Uint8Array(0) }) === partition) this.scheduled.delete(key);
  }

  async beforeCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    if (timers.length === 0) return;
    const known = this.written.get(owner.stateKey) ?? [];
    if (indexCovers(known, timers)) return;
    const union = [...known.filter((k) => !timers.some((t) => t.timerId === k.timerId && t.dueAtMs === k.dueAtMs)), ...timers];
    if (sameTimers(known, union)) return;
    await this.write({ owner, timers: union });
  }

  async afterCommit(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    const known = this.written.get(owner.stateKey) ?? [];
    const scheduled = this.scheduled.get(owner.stateKey) ?? [];
    const removed = known.some((k) => !timers.some((t) => t.timerId === k.timerId));
    // Entries due no later than their timers may stay, indexed and scheduled: they fire early, the
    // actor ignores the firing and the index is reconciled then. This keeps a timer that moves later
    // on every commit (the idle TTL) free of index writes and schedule churn.
    if (!removed && indexCovers(known, timers) && indexCovers(scheduled, timers)) return;
    await this.reconcile(owner, timers);
  }

  async reconcile(owner: TimerOwner, timers: readonly TimerDoc[]): Promise<void> {
    const known = this.written.get(owner.stateKey);
    if (timers.length === 0) {
      if (known !== undefined) {
        await this.writes.delete(timerIndexKey(this.partitionOf(owner), owner.stateKey));
        this.written.delete(owner.stateKey);
      }
    } else if (known === undefined || !sameTimers(known, timers)) {
      await this.write({ owner, timers });
    }
    if (timers.length === 0) this.scheduled.delete(owner.stateKey);
    else this.scheduled.set(owner.stateKey, timers);
    this.schedulers.get(this.partitionOf(owner))?.update(owner, timers);
  }

  /**
   * Re-reads from the index the keys matching `matches` that this process knows of, replacing
   * what their schedulers hold: after an erasure the entries are gone and the timers are dropped;
   * after an aborted one they are scheduled again (firings held back during the pause fire now).
   */
  async refresh(matches: (stateKey: string) => boolean): Promise<void> {
    const stateKeys = new Set([...this.scheduled.keys(), ...this.written.keys()].filter(matches));
    for (const stateKey of stateKeys) {
      const dot = stateKey.indexOf('.');
      const owner: TimerOwner = { stateKey, agent: stateKey.slice(0, dot), entityKey: decodeKeyToken(stateKey.slice(dot + 1)) };
      const partition = this.partitionOf(owner);
      this.written.delete(stateKey);
      this.scheduled.delete(stateKey);
      const entry = await this.kv.get(timerIndexKey(partition, stateKey));
      const decoded = entry !== null && entry.operation === 'PUT' ? decodeTimerIndexEntry(stateKey, entry.value) : undefined;
      if (decoded !== undefined) {
        this.written.set(stateKey, decoded.timers);
        this.scheduled.set(stateKey, decoded.timers);
      }
      this.schedulers.get(partition)?.update(decoded?.owner ?? owner, decoded?.timers ?? []);
    }
  }

  private async write(entry: TimerIndexEntry): Promise<void> {
    await this.writes.put(timerIndexKey(this.partitionOf(entry.owner), entry.owner.stateKey), encodeTimerIndexEntry(entry));
    this.written.set(entry.owner.stateKey, entry.timers);
  }

  private partitionOf(owner: TimerOwner): number {
    return this.topology.partitionOf(owner.stateKey.slice(owner.stateKey.indexOf('.') + 1));
  }
}

