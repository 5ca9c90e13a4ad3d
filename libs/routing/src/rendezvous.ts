import { createHash } from 'node:crypto';

/**
 * The rendezvous (highest-random-weight) owner of `partition` among `members`: the member whose
 * hash of `<member>/<partition>` is highest (the first 8 bytes of its SHA-256; a weaker hash such as
 * FNV-1a gives skewed loads for similar member names). Deterministic for the same member set in any order;
 * when a member joins it takes about 1/N of the partitions and when one leaves only its own move.
 * A *hint*: the partition lease decides who actually owns a partition.
 */
export function rendezvousOwner(partition: number, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1n;
  for (const member of members) {
    const score = createHash('sha256').update(`${member}/${partition}`).digest().readBigUInt64BE(0);
    if (score > bestScore || (score === bestScore && best !== undefined && member < best)) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}

/** The partitions each member should own: `rendezvousOwner` over `0..partitions-1`. */
export function assignPartitions(partitions: number, members: readonly string[]): Map<string, number[]> {
  const assignment = new Map<string, number[]>(members.map((m) => [m, []]));
  for (let p = 0; p < partitions; p += 1) {
    const owner = rendezvousOwner(p, members);
    if (owner !== undefined) assignment.get(owner)?.push(p);
  }
  return assignment;
}
