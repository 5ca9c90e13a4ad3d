import type { KV } from '@nats-io/kv';

/**
 * Cluster membership in a TTL bucket (`AGENTS_MEMBERS`): each member `put`s its own key every
 * third of the TTL; a member whose key is gone (expired, or deleted on a clean shutdown) has left.
 * The member list is *re-listed*, never trusted to a watch alone (watchers miss expiries on 2.9).
 * Membership only decides where partitions should go; leases decide who owns them.
 */
export class Membership {
  private readonly value: Uint8Array;

  constructor(
    private readonly kv: KV,
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
    const ids: string[] = [];
    for await (const key of await this.kv.keys()) ids.push(key);
    return ids.sort();
  }

  /** Leaves at once (a clean shutdown), so peers rebalance without waiting for the TTL. */
  async leave(): Promise<void> {
    await this.kv.delete(this.memberId).catch(() => undefined);
  }
}
