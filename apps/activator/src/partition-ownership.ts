import type { KV } from '@nats-io/kv';

/** An owned partition and the epoch its writes are fenced with. */
export interface OwnedPartition {
  readonly partition: number;
  readonly epoch: number;
}

/** The lease key of partition `p` in `AGENTS_LEASES`. */
export function leaseKey(partition: number): string {
  return `p${String(partition).padStart(4, '0')}`;
}

/**
 * Single-activator ownership: claims every partition by writing its lease key and takes the
 * returned KV revision as the epoch. Revisions only grow within a bucket, so each start gets an
 * epoch above its predecessor's and every document it writes fences older writers. Leases with
 * create/renew, membership and rebalancing replace this when several activators share partitions.
 */
export async function claimAllPartitions(leases: KV, partitions: number, memberId: string): Promise<OwnedPartition[]> {
  const owned: OwnedPartition[] = [];
  for (let partition = 0; partition < partitions; partition += 1) {
    const epoch = await leases.put(leaseKey(partition), new TextEncoder().encode(memberId));
    owned.push({ partition, epoch });
  }
  return owned;
}
