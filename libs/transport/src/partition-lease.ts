import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';

/** A monotonic clock (lease validity is judged locally, never by comparing wall clocks). */
export interface MonotonicClock {
  monotonicMs(): number;
}

/**
 * A lease on one key of a TTL bucket (`AGENTS_LEASES`): the authority to own a partition (or the
 * ingest consumer). Taken with `create`, so only one holder can succeed; renewed by revision CAS,
 * so a holder that lost it finds out at its next renewal; expired by the bucket's max_age when the
 * holder stops renewing. The revision `create` returned is the holder's **epoch**: revisions only
 * grow, so a later holder always has a higher epoch, which fences the earlier one at the state store.
 *
 * Validity is judged on the holder's monotonic clock from the moment a renewal was *sent*, with a
 * safety margin, so a holder stops before the server could hand the key to someone else.
 */
export class PartitionLease {
  private revision: number;
  private renewedAt: number;
  /** The renewal on the wire, if any: a release waits for it, so it deletes the revision that renewal wrote. */
  private renewing: Promise<boolean> | undefined;
  private released = false;

  private constructor(
    private readonly kv: KV,
    readonly key: string,
    private readonly value: Uint8Array,
    private readonly ttlMs: number,
    private readonly clock: MonotonicClock,
    /** The holder's epoch: the revision `create` returned. */
    readonly epoch: number,
    sentAt: number,
  ) {
    this.revision = epoch;
    this.renewedAt = sentAt;
  }

  /** Takes the lease if nobody holds it; undefined when it is held (or was just taken by someone else). */
  static async tryAcquire(kv: KV, key: string, holder: string, ttlMs: number, clock: MonotonicClock): Promise<PartitionLease | undefined> {
    const value = new TextEncoder().encode(holder);
    const sentAt = clock.monotonicMs();
    try {
      const revision = await kv.create(key, value);
      return new PartitionLease(kv, key, value, ttlMs, clock, revision, sentAt);
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) return undefined;
      throw error;
    }
  }

  /**
   * Renews by revision CAS; false means the lease is lost (expired and maybe re-taken) and must be
   * dropped. After {@link release} it sends nothing and answers false. One renewal at a time: a
   * call while one is in flight shares its answer.
   */
  renew(): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    this.renewing ??= this.sendRenewal().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async sendRenewal(): Promise<boolean> {
    const sentAt = this.clock.monotonicMs();
    try {
      this.revision = await this.kv.update(this.key, this.value, this.revision);
      this.renewedAt = sentAt;
      return true;
    } catch {
      return false;
    }
  }

  /** True while the holder may act: before `renewedAt + ttl − margin` on its monotonic clock, and never once released. */
  get valid(): boolean {
    return !this.released && this.clock.monotonicMs() < this.renewedAt + this.ttlMs - safetyMargin(this.ttlMs);
  }

  /** Milliseconds of validity left (negative when lapsed). */
  get remainingMs(): number {
    return this.renewedAt + this.ttlMs - safetyMargin(this.ttlMs) - this.clock.monotonicMs();
  }

  /**
   * Gives the lease up at once (only if it is still ours: the delete is revision-checked). A
   * renewal still in flight is awaited first: the server applies it before the delete, so a delete
   * checked against the older revision would be refused and the lease would stay held until the
   * bucket's max_age expired it — a successor would wait a whole TTL after a graceful stop. A
   * failed delete (the lease was lost, or the server is unreachable) leaves expiry to max_age.
   */
  async release(): Promise<void> {
    this.released = true;
    await this.renewing;
    await this.kv.delete(this.key, { previousSeq: this.revision }).catch(() => undefined);
  }
}

/** Stop this long before the server-side expiry: a fifth of the TTL, at most three seconds. */
export function safetyMargin(ttlMs: number): number {
  return Math.min(3_000, Math.floor(ttlMs / 5));
}
