import { Logger } from '@nestjs/common';
import type { KV } from '@nats-io/kv';
import { PartitionLease, type MonotonicClock } from '#transport';

/** Why the active replica stops its work. */
export type StandDownReason =
  /** The lease could not be renewed, or its local validity lapsed: stop at once, drain nothing. */
  | 'lost'
  /** The work asked to restart under a new epoch (a consumer delivery gap): stop at once, then compete again. */
  | 'reset'
  /** The process is stopping: drain while the lease keeps renewing, then release it. */
  | 'shutdown';

/** What the lease drives. */
export interface ActiveStandbyHooks {
  /** This replica holds the lease under `epoch`: start the work; resolves once it runs. A throw gives the lease back. */
  activate(epoch: number): Promise<void>;
  /** Stop the work. `lost` and `reset` MUST stop at once; `shutdown` may drain first. */
  deactivate(reason: StandDownReason): Promise<void>;
  /** Another replica holds the lease (called on each transition into standby, with its holder when readable). */
  standingBy(holder: string | undefined): void;
}

/** Identity, timing and the lease key of one replica. */
export interface ActiveStandbyOptions {
  /** The lease bucket (`AGENTS_LEASES`, whose max_age is the TTL). */
  readonly leases: KV;
  readonly key: string;
  /** This replica's id, stored as the lease value. */
  readonly holder: string;
  readonly ttlMs: number;
  readonly clock: MonotonicClock & { setTimeout(callback: () => void, ms: number): () => void };
  readonly hooks: ActiveStandbyHooks;
}

/**
 * One active replica, any number of hot standbys, decided by one {@link PartitionLease}. Every
 * tick (a tenth of the TTL) a standby tries to `create` the lease; the winner activates under the
 * lease revision as its epoch. The active replica renews by revision CAS at the first tick a third
 * of the TTL after its last renewal (in the background, so a hung request cannot delay the checks)
 * and stands down the moment a renewal fails or its local monotonic validity lapses (TTL minus a
 * fifth after the last renewal was sent, checked every tick).
 * On shutdown it drains while still renewing, then releases the lease with a revision-checked
 * delete, so a standby takes over at its next tick instead of waiting for the TTL.
 *
 * Crash: the lease is not renewed and expires after at most one TTL (the bucket's max_age); a
 * standby takes over within the TTL plus one tick. A paused holder that resumes finds its lease
 * invalid at the next check and stops; the successor's epoch is higher, so its work supersedes.
 */
export class ActiveStandby {
  private readonly logger = new Logger('ActiveStandby');
  private lease: PartitionLease | undefined;
  private lastRenew = Number.NEGATIVE_INFINITY;
  private renewing: Promise<void> | undefined;
  private settling: Promise<void> | undefined;
  private cancelTick: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private standingBy = false;

  constructor(private readonly options: ActiveStandbyOptions) {}

  /** Makes the first attempt inline (so a lone replica is active when this resolves), then ticks. */
  async start(): Promise<void> {
    this.running = this.tick().catch((error: unknown) => this.logger.warn(`lease tick failed: ${(error as Error).message}`));
    await this.running;
    this.schedule();
  }

  /** The epoch while this replica is active (holds a lease that is locally valid). */
  get epoch(): number | undefined {
    return this.valid ? this.lease?.epoch : undefined;
  }

  /** True while this replica holds the lease and its local validity has not lapsed. */
  get valid(): boolean {
    return this.lease?.valid ?? false;
  }

  /** Stops the active work at once and competes for the lease again (a new epoch, possibly on another replica). */
  reset(): void {
    const lease = this.lease;
    if (lease !== undefined) void this.standDown('reset', lease);
  }

  /** Drains and releases the lease if held; no acquisition after this is called. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      // A tick that is acquiring right now gives the lease straight back (see `tick`).
      await this.running;
      const lease = this.lease;
      // The tick keeps running meanwhile: it renews the lease during the drain and stands down at
      // once if the lease is lost anyway.
      if (lease !== undefined) await this.standDown('shutdown', lease);
      await this.settling;
      this.cancelTick?.();
      await this.running;
    })();
    return this.stopped;
  }

  private get tickMs(): number {
    return Math.max(100, Math.floor(this.options.ttlMs / 10));
  }

  private schedule(): void {
    this.cancelTick = this.options.clock.setTimeout(() => {
      this.running = this.tick()
        .catch((error: unknown) => this.logger.warn(`lease tick failed: ${(error as Error).message}`))
        .finally(() => {
          if (!this.stopping || this.lease !== undefined) this.schedule();
        });
    }, this.tickMs);
  }

  private async tick(): Promise<void> {
    const held = this.lease;
    if (held !== undefined) {
      if (!held.valid) {
        this.logger.warn(`lease ${this.options.key} (epoch ${held.epoch}) lapsed before it could be renewed`);
        void this.standDown('lost', held);
      } else if (this.renewing === undefined && this.options.clock.monotonicMs() - this.lastRenew >= this.options.ttlMs / 3) {
        this.lastRenew = this.options.clock.monotonicMs();
        this.renewing = held
          .renew()
          .then((renewed) => {
            if (!renewed) {
              this.logger.warn(`lease ${this.options.key} (epoch ${held.epoch}) could not be renewed`);
              void this.standDown('lost', held);
            }
          })
          .finally(() => {
            this.renewing = undefined;
          });
      }
      return;
    }
    // Never compete while the previous epoch's work is still stopping.
    await this.settling;
    if (this.stopping) return;
    const acquired = await PartitionLease.tryAcquire(this.options.leases, this.options.key, this.options.holder, this.options.ttlMs, this.options.clock);
    if (acquired === undefined) {
      if (!this.standingBy) {
        this.standingBy = true;
        this.options.hooks.standingBy(await this.holderOf());
      }
      return;
    }
    if (this.stopping) {
      await acquired.release();
      return;
    }
    this.standingBy = false;
    this.lease = acquired;
    this.lastRenew = this.options.clock.monotonicMs();
    try {
      await this.options.hooks.activate(acquired.epoch);
    } catch (error) {
      this.logger.warn(`could not activate under epoch ${acquired.epoch}: ${(error as Error).message}`);
      if (this.lease === acquired) this.lease = undefined;
      await acquired.release();
    }
  }

  /**
   * Stops the work for `reason` and then releases `lease` (revision-checked: a successor's lease is
   * never removed). `lost` and `reset` forget the lease at once, so nothing renews it and the
   * replica competes again once the work has stopped; `shutdown` keeps it (renewed) until the drain ends.
   */
  private standDown(reason: StandDownReason, lease: PartitionLease): Promise<void> {
    if (this.lease !== lease) return this.settling ?? Promise.resolve();
    if (reason !== 'shutdown') this.lease = undefined;
    const previous = this.settling;
    const settling = (async () => {
      try {
        await this.options.hooks.deactivate(reason);
      } catch (error) {
        this.logger.warn(`stopping the work of epoch ${lease.epoch} failed: ${(error as Error).message}`);
      } finally {
        if (this.lease === lease) this.lease = undefined;
        await lease.release();
        await previous;
      }
    })();
    this.settling = settling;
    void settling.finally(() => {
      if (this.settling === settling) this.settling = undefined;
    });
    return settling;
  }

  private async holderOf(): Promise<string | undefined> {
    try {
      const entry = await this.options.leases.get(this.options.key);
      return entry === null || entry.length === 0 ? undefined : entry.string();
    } catch {
      return undefined;
    }
  }
}
