import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { listKvKeys } from './kv-keys.js';

/**
 * Cluster membership in a TTL bucket (`AGENTS_MEMBERS`): each member `put`s its own key every
 * third of the TTL; a member whose key is gone (expired, or purged on a clean shutdown) has left.
 * The member list is *re-listed*, never trusted to a watch alone (watchers miss expiries on 2.9),
 * and re-listed from the stream's subject index, not with `kv.keys()` (see {@link listKvKeys}).
 * Membership only decides where partitions should go; leases decide who owns them.
 */
export class Membership {
  private readonly value: Uint8Array;

  constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    /** The bucket's name (`AGENTS_MEMBERS`). */
    private readonly bucket: string,
    readonly memberId: string,
    info: Record<string, string | number>,
  ) {
    this.value = new TextEncoder().encode(JSON.stringify(info));
  }

  /** Announces (or refreshes) this member. */
  async heartbeat(): Promise<void> {
    await this.kv.put(this.memberId, this.value);
  }

  /** The ids of every member currently present, this one included if it heartbeated. */
  async list(): Promise<string[]> {
    return listKvKeys(this.jsm, this.bucket);
  }

  /**
   * Leaves at once (a clean shutdown), so peers rebalance without waiting for the TTL. The key is
   * purged from the stream rather than deleted: a delete marker would keep the subject listed
   * until it aged out. If the purge fails, a delete marker does the same job a TTL later.
   */
  async leave(): Promise<void> {
    try {
      await this.jsm.streams.purge(`KV_${this.bucket}`, { filter: `$KV.${this.bucket}.${this.memberId}` });
    } catch {
      await this.kv.delete(this.memberId).catch(() => undefined);
    }
  }
}
