/**
 * When several activators share the partitions, a measurement must wait until ownership has
 * settled: every activator consumes exactly the partitions the rendezvous assignment gives it
 * (ARCHITECTURE §4), none is still handing partitions over. Each activator logs
 * `<member> owns <n> partitions: [<list>]` whenever the set it consumes changes; this file reads
 * those lines and compares the latest one per member with `assignPartitions`. Pure: no I/O.
 */
import { assignPartitions } from '#routing';

/** The partitions one activator last said it consumes. */
export type OwnershipReports = ReadonlyMap<string, readonly number[]>;

const OWNS_LINE = /([^\s"]+) owns (\d+) partitions: \[([\d,]*)\]/;

/** The member and partitions of an `owns` log line, or `undefined` for any other line. */
export function parseOwnsLine(line: string): { readonly member: string; readonly partitions: readonly number[] } | undefined {
  const match = OWNS_LINE.exec(line);
  if (match === null) return undefined;
  const [, member, , list] = match;
  if (member === undefined || list === undefined) return undefined;
  return { member, partitions: list === '' ? [] : list.split(',').map(Number) };
}

/**
 * True when every one of `members` last reported exactly its share of the rendezvous assignment
 * of `partitions` over all `members` (so every partition is consumed, by one member only).
 */
export function ownershipSettled(reports: OwnershipReports, members: readonly string[], partitions: number): boolean {
  const target = assignPartitions(partitions, members);
  return members.every((member) => {
    const reported = reports.get(member);
    const wanted = target.get(member) ?? [];
    return reported !== undefined && reported.length === wanted.length && [...reported].sort((a, b) => a - b).every((p, i) => p === wanted[i]);
  });
}
