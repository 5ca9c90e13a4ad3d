import { Logger } from '@nestjs/common';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { rendezvousOwner } from '#routing';
import { Membership, PartitionLease, type MonotonicClock } from '#transport';
import { leaseKey } from './lease-key.js';

/** Why a partition stops being consumed here. */
export type ReleaseReason =
  /** The assignment moved it to another member: drain, then hand the lease back. */
  | 'rebalance'
  /** The lease could not be renewed in time (or a newer epoch was seen): stop at once. */
  | 'lost'
  /** The consumer showed a delivery gap: stop at once and take the partition again under a new epoch. */
  | 'reset'
  /** The process is stopping: drain, then hand the lease back. */
  | 'shutdown';

/** What the manager drives. */
export interface OwnershipHooks {
  /** Start consuming partition `p` under `epoch` (resolves once it is consuming). */
  acquired(partition: number, epoch: number): Promise<void>;
  /** Stop consuming partition `p`; graceful reasons drain first, the others abandon in-flight work. */
  released(partition: number, reason: ReleaseReason): Promise<void>;
}

/** Told when a partition lease is taken or given up (metrics); must not throw. */
export interface OwnershipObserver {
  acquired(partition: number, epoch: number): void;
  released(partition: number, reason: ReleaseReason): void;
}

/** Timing and identity of one member. */
export interface OwnershipOptions {
  readonly memberId: string;
  readonly partitions: number;
  readonly leaseTtlMs: number;
  readonly leases: KV;
  readonly members: KV;
  /** The members bucket's name, and the manager its members are listed through (see `listKvKeys`). */
  readonly membersBucket: string;
  readonly jsm: JetStreamManager;
  readonly clock: MonotonicClock & { setTimeout(callback: () => void, ms: number): () => void };
  readonly hooks: OwnershipHooks;
  /** Extra information published with the membership heartbeat. */
  readonly info?: Record<string, string | number>;
  /** Hears every lease taken and given up. */
  readonly observer?: OwnershipObserver;
}

/**
 * Makes this activator a cluster member (ARCHITECTURE §4): it heartbeats in `AGENTS_MEMBERS`,
 * re-lists the members every tick, computes each partition's target owner by rendezvous hashing
 * over the members it considers stable, and then
 * - acquires (lease `create`) the partitions targeted at it that nobody holds,
 * - hands back, after draining, the partitions it holds that target someone else — at most a
 *   few per tick, so a flapping member cannot make the cluster thrash,
 * - renews its leases by revision CAS every third of the TTL, and stops a partition the moment
 *   a renewal fails or its local deadline passes.
 * Heartbeats and renewals run in their own keep-alive loop, never behind the assignment loop:
 * starting a partition (consumer reset, timer index load) takes a few hundred milliseconds of
 * broker round trips, and a member taking over many partitions at once would otherwise stop
 * renewing the leases it already holds, and lose them, while it acquires the new ones (observed
 * in the churn chaos suite: ticks blocked 1–5 s in acquisitions, leases lost, partitions thrashed).
 * The lease is the authority; the assignment is only where partitions *should* go. A joining
 * member counts only after it has been present for a stabilisation period; a leaving one stops
 * counting as soon as its key is gone (deleted on SIGTERM, expired after a crash).
 */
export class OwnershipManager {
  private readonly logger = new Logger('Ownership');
  private readonly membership: Membership;
  /**
   * Held leases; a partition being handed back stays here (and keeps renewing) until its drain ends.
   * `started` settles when the `acquired` hook has finished, so a drop never overtakes a start.
   */
  private readonly owned = new Map<number, { readonly lease: PartitionLease; readonly started: Promise<void>; releasing: Promise<void> | undefined }>();
  /** Partitions whose `released` hook is still running: not re-acquired until it has finished. */
  private readonly stoppingPartitions = new Set<number>();
  private readonly firstSeen = new Map<string, number>();
  private readonly pendingResets = new Set<number>();
  private readonly releases = new Set<Promise<void>>();
  private cancelTick: (() => void) | undefined;
  private cancelKeepAlive: (() => void) | undefined;
  private lastHeartbeat = Number.NEGATIVE_INFINITY;
  private lastRenew = Number.NEGATIVE_INFINITY;
  private lastGoodTick = Number.NEGATIVE_INFINITY;
  private lastGoodKeepAlive = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | undefined;
  private keepingAlive: Promise<void> | undefined;
  private keepAliveStopped = false;
  private stopping = false;
  private reported: string | undefined;

  constructor(private readonly options: OwnershipOptions) {
    this.membership = new Membership(options.members, options.jsm, options.membersBucket, options.memberId, { ...(options.info ?? {}), partitions: options.partitions });
  }

  /** Joins the cluster; partitions are taken from the next tick on (after peers had a chance to appear). */
  async start(): Promise<void> {
    await this.membership.heartbeat();
    this.lastHeartbeat = this.options.clock.monotonicMs();
    this.scheduleKeepAlive(this.tickMs);
    this.schedule(this.tickMs);
  }

  /**
   * True while membership and leases are in a good state: the last keep-alive (heartbeat,
   * renewals) and the last assignment tick both completed within a third of the lease TTL, and
   * every partition still consumed holds a valid lease. False before the first tick, while NATS
   * is unreachable, and after stop. Readiness (`/readyz`), never a decision input.
   */
  get healthy(): boolean {
    if (this.stopping) return false;
    const now = this.options.clock.monotonicMs();
    const bound = Math.max(this.options.leaseTtlMs / 3, 2 * this.tickMs);
    const fresh = now - this.lastGoodTick <= bound && now - this.lastGoodKeepAlive <= bound;
    return fresh && [...this.owned.values()].every((o) => o.releasing !== undefined || o.lease.valid);
  }

  /**
   * True while this member holds a locally valid lease on partition `p` (consumed, or being
   * drained for a hand-back): the condition for committing any of its keys.
   */
  holds(partition: number): boolean {
    return this.owned.get(partition)?.lease.valid ?? false;
  }

  /** Partitions currently consumed (not being handed back), with their epochs. */
  get partitions(): ReadonlyMap<number, number> {
    return new Map([...this.owned].filter(([, o]) => o.releasing === undefined).map(([p, o]) => [p, o.lease.epoch]));
  }

  /** Asks for partition `p` to be dropped and re-acquired under a new epoch (a consumer delivery gap). */
  requestReset(partition: number): void {
    this.pendingResets.add(partition);
  }

  /** A newer epoch wrote a key of `p`: this member is stale for it; drop it at once. */
  fenced(partition: number): void {
    this.drop(partition, 'lost');
  }

  /**
   * Leaves the cluster: announce the departure, drain and hand back every partition. The leases
   * keep being renewed while the drains run (a drain may outlast a short TTL); the heartbeat does
   * not, so the departure announced by removing the member key is not undone.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.cancelTick?.();
    await this.running;
    await this.keepingAlive;
    await this.membership.leave();
    for (const p of [...this.owned.keys()]) this.drop(p, 'shutdown');
    await Promise.all([...this.releases]);
    this.keepAliveStopped = true;
    this.cancelKeepAlive?.();
    await this.keepingAlive;
  }

  private get tickMs(): number {
    return Math.max(200, Math.floor(this.options.leaseTtlMs / 10));
  }

  private get stabiliseMs(): number {
    return Math.floor(this.options.leaseTtlMs / 5);
  }

  private schedule(ms: number): void {
    if (this.stopping) return;
    this.cancelTick = this.options.clock.setTimeout(() => {
      this.running = this.tick()
        .then(() => {
          this.lastGoodTick = this.options.clock.monotonicMs();
        })
        .catch((error: unknown) => this.logger.warn(`ownership tick failed: ${(error as Error).message}`))
        .finally(() => {
          this.report();
          this.schedule(this.tickMs);
        });
    }, ms);
  }

  private scheduleKeepAlive(ms: number): void {
    if (this.keepAliveStopped) return;
    this.cancelKeepAlive = this.options.clock.setTimeout(() => {
      this.keepingAlive = this.keepAlive()
        .then(() => {
          this.lastGoodKeepAlive = this.options.clock.monotonicMs();
        })
        .catch((error: unknown) => this.logger.warn(`ownership keep-alive failed: ${(error as Error).message}`))
        .finally(() => this.scheduleKeepAlive(this.tickMs));
    }, ms);
  }

  /**
   * Drops lapsed or reset partitions, renews the other leases and heartbeats (each every third of
   * the TTL). A lease past its local deadline is dropped before any renewal is tried: after a
   * pause the renewal could still succeed if nobody took the partition, but the owner has already
   * been out of contract (nats-design §7.2: stop the moment the local deadline passes).
   */
  private async keepAlive(): Promise<void> {
    const now = this.options.clock.monotonicMs();
    const third = this.options.leaseTtlMs / 3;
    for (const [p, { lease }] of [...this.owned]) if (!lease.valid) this.drop(p, 'lost');
    if (now - this.lastRenew >= third) {
      this.lastRenew = now;
      await Promise.all(
        [...this.owned].map(async ([p, held]) => {
          if (!(await held.lease.renew()) && this.owned.get(p) === held) this.drop(p, 'lost');
        }),
      );
    }
    for (const [p, { lease }] of [...this.owned]) if (!lease.valid) this.drop(p, 'lost');
    for (const p of [...this.pendingResets]) {
      this.pendingResets.delete(p);
      this.drop(p, 'reset');
    }
    if (!this.stopping && now - this.lastHeartbeat >= third) {
      await this.membership.heartbeat();
      this.lastHeartbeat = now;
    }
  }

  /** One assignment round: re-list the members, hand back what belongs elsewhere, take what is ours and free. */
  private async tick(): Promise<void> {
    const now = this.options.clock.monotonicMs();
    if (this.stopping) return;

    const listed = await this.membership.list();
    for (const id of [...this.firstSeen.keys()]) if (!listed.includes(id)) this.firstSeen.delete(id);
    for (const id of listed) if (!this.firstSeen.has(id)) this.firstSeen.set(id, now);
    const stable = listed.filter((id) => id === this.options.memberId || now - (this.firstSeen.get(id) ?? now) >= this.stabiliseMs);
    if (!stable.includes(this.options.memberId)) stable.push(this.options.memberId);

    // Hand back what should be elsewhere, a few at a time (drains run in the background while
    // their leases keep renewing, so a slow drain never lets a lease lapse).
    const budget = Math.max(1, Math.ceil(this.options.partitions / 8));
    const inFlight = [...this.owned.values()].filter((o) => o.releasing !== undefined).length;
    const moving = [...this.owned]
      .filter(([p, o]) => o.releasing === undefined && rendezvousOwner(p, stable) !== this.options.memberId)
      .map(([p]) => p)
      .slice(0, Math.max(0, budget - inFlight));
    for (const p of moving) this.drop(p, 'rebalance');

    // Take what should be here and is free (not while this member is still stopping its previous
    // tenure of it: that stop would tear down the new consumer, timers and cache).
    for (let p = 0; p < this.options.partitions; p += 1) {
      if (this.stopping || this.owned.has(p) || this.stoppingPartitions.has(p) || rendezvousOwner(p, stable) !== this.options.memberId) continue;
      const lease = await PartitionLease.tryAcquire(this.options.leases, leaseKey(p), this.options.memberId, this.options.leaseTtlMs, this.options.clock);
      if (lease === undefined) continue;
      const started = this.options.hooks.acquired(p, lease.epoch);
      const held = { lease, started: started.catch(() => undefined), releasing: undefined };
      this.owned.set(p, held);
      try {
        await started;
        this.logger.log(`acquired partition ${p} (epoch ${lease.epoch})`);
        this.options.observer?.acquired(p, lease.epoch);
      } catch (error) {
        this.logger.warn(`could not start partition ${p}: ${(error as Error).message}`);
        if (this.owned.get(p) === held) {
          this.owned.delete(p);
          await lease.release();
        }
      }
    }
  }

  /** Logs the consumed partitions whenever they change (and after the first tick). */
  private report(): void {
    const consumed = [...this.partitions.keys()].sort((a, b) => a - b);
    const summary = consumed.join(',');
    if (summary === this.reported || this.stopping) return;
    this.reported = summary;
    this.logger.log(`${this.options.memberId} owns ${consumed.length} partitions: [${summary}]`);
  }

  /**
   * Stops consuming `partition`. Graceful reasons drain first and keep the lease (renewed) until
   * the drain ends; a lost lease stops renewing at once. Either way the lease is then released
   * with a revision-checked delete, which can never remove a successor's lease.
   */
  private drop(partition: number, reason: ReleaseReason): void {
    const held = this.owned.get(partition);
    if (held === undefined || held.releasing !== undefined) return;
    const graceful = reason === 'rebalance' || reason === 'shutdown';
    this.stoppingPartitions.add(partition);
    if (!graceful) this.owned.delete(partition);
    held.releasing = (async () => {
      try {
        // A partition still starting is stopped once its start has finished, never half-way.
        await held.started;
        await this.options.hooks.released(partition, reason);
      } catch (error) {
        this.logger.warn(`stopping partition ${partition} failed: ${(error as Error).message}`);
      } finally {
        if (this.owned.get(partition) === held) this.owned.delete(partition);
        this.stoppingPartitions.delete(partition);
        await held.lease.release();
        this.logger.log(`released partition ${partition} (${reason})`);
        this.options.observer?.released(partition, reason);
      }
    })();
    const releasing = held.releasing;
    this.releases.add(releasing);
    void releasing.finally(() => this.releases.delete(releasing));
  }
}
