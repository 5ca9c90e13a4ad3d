// Pure spec: the settle check decides when a multi-activator measurement may start, so it must
// neither start during a hand-over nor wait forever once the assignment is reached.
import { describe, expect, it } from 'vitest';
import { assignPartitions } from '#routing';
import { ownershipSettled, parseOwnsLine } from './ownership-settle.js';

describe('parseOwnsLine', () => {
  it('reads the member and partitions out of a JSON log line', () => {
    const line = '{"level":30,"context":"Ownership","msg":"bench-activator-2 owns 3 partitions: [1,7,12]"}';
    expect(parseOwnsLine(line)).toEqual({ member: 'bench-activator-2', partitions: [1, 7, 12] });
  });

  it('reads an empty partition list as no partitions', () => {
    expect(parseOwnsLine('bench-activator-3 owns 0 partitions: []')).toEqual({ member: 'bench-activator-3', partitions: [] });
  });

  it('ignores every other line', () => {
    expect(parseOwnsLine('acquired partition 4 (epoch 2)')).toBeUndefined();
  });
});

describe('ownershipSettled', () => {
  const members = ['bench-activator-1', 'bench-activator-2'];
  const target = assignPartitions(16, members);

  it('is settled when each member reports exactly its rendezvous share, in any order', () => {
    const reports = new Map(members.map((m) => [m, [...(target.get(m) ?? [])].reverse()]));
    expect(ownershipSettled(reports, members, 16)).toBe(true);
  });

  it('is not settled while the first member still holds everything', () => {
    const all = Array.from({ length: 16 }, (_, p) => p);
    expect(ownershipSettled(new Map([[members[0] as string, all], [members[1] as string, []]]), members, 16)).toBe(false);
  });

  it('is not settled while a member has not reported yet', () => {
    expect(ownershipSettled(new Map([[members[0] as string, target.get(members[0] as string) ?? []]]), members, 16)).toBe(false);
  });
});
