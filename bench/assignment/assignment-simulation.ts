/**
 * Simulates the partition assignment (rendezvous hashing over members, `#routing`) at sizes this
 * machine cannot run: load balance (max and min over mean partitions per member) and partitions
 * moved when one member joins or leaves, against the ideal moves (P/(N+1) and P/N).
 */
import { assignPartitions } from '#routing';

/** One simulated configuration. */
export interface AssignmentRow {
  readonly members: number;
  readonly partitions: number;
  readonly maxOverMean: number;
  readonly minOverMean: number;
  readonly movedOnJoin: number;
  readonly idealOnJoin: number;
  readonly movedOnLeave: number;
  readonly idealOnLeave: number;
}

const memberIds = (n: number, offset = 0): string[] => Array.from({ length: n }, (_, i) => `activator-${i + offset}.pod.local-${(i * 7919) % 1000}`);

function ownersOf(partitions: number, members: readonly string[]): string[] {
  const owners = new Array<string>(partitions);
  for (const [member, list] of assignPartitions(partitions, members)) for (const p of list) owners[p] = member;
  return owners;
}

/** Simulates `members` members over `partitions` partitions. */
export function simulate(members: number, partitions: number): AssignmentRow {
  const base = memberIds(members);
  const owners = ownersOf(partitions, base);
  const loads = new Map<string, number>(base.map((m) => [m, 0]));
  for (const o of owners) loads.set(o, (loads.get(o) ?? 0) + 1);
  const mean = partitions / members;
  const values = [...loads.values()];
  const joined = ownersOf(partitions, [...base, ...memberIds(1, members)]);
  const left = ownersOf(partitions, base.slice(0, -1));
  const moved = (after: string[]): number => after.reduce((n, owner, p) => (owner === owners[p] ? n : n + 1), 0);
  return {
    members,
    partitions,
    maxOverMean: Math.max(...values) / mean,
    minOverMean: Math.min(...values) / mean,
    movedOnJoin: moved(joined),
    idealOnJoin: partitions / (members + 1),
    movedOnLeave: moved(left),
    idealOnLeave: partitions / members,
  };
}

/** The table of `docs/scaling.md`. */
export function simulationTable(rows: readonly AssignmentRow[]): string {
  const lines = [
    '| members | P | max/mean | min/mean | moved on join (ideal) | moved on leave (ideal) |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.members} | ${r.partitions} | ${r.maxOverMean.toFixed(2)} | ${r.minOverMean.toFixed(2)} | ${r.movedOnJoin} (${r.idealOnJoin.toFixed(1)}) | ${r.movedOnLeave} (${r.idealOnLeave.toFixed(1)}) |`,
    ),
  ];
  return lines.join('\n');
}

/** Runs the default grid: 3 to 300 members, P = 256 and 4096. */
export function runAssignmentSimulation(): string {
  const rows: AssignmentRow[] = [];
  for (const partitions of [256, 4096]) {
    for (const members of [3, 10, 30, 100, 300]) {
      if (members > partitions) continue;
      rows.push(simulate(members, partitions));
    }
  }
  return simulationTable(rows);
}
