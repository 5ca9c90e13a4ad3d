/**
 * The supersede chain walk behind `LongTermBackend.history`, shared by every backend: backwards
 * through the records that point at a key (`supersededBy`), forwards through each record's
 * replacement. Cycles (a bad reconciliation re-pointed) and the length bound stop the walk. Pure
 * but for the lookups it is given.
 */
import type { LongTermRecord } from '#core';
import { compareKeys } from '../key-order.js';

/** How a backend answers the walk's two questions (both already filter expired records). */
export interface ChainLookups {
  /** The live record under `key`, or undefined. */
  load(key: string): Promise<LongTermRecord | undefined>;
  /** The live records whose `supersededBy` is `key`. */
  predecessors(key: string): Promise<LongTermRecord[]>;
}

/**
 * The chain through `key`: predecessors oldest first, the record, then its replacements in order;
 * at most `maxLength` records, each once. "Oldest" is by the chain itself — a record retired in
 * favour of a predecessor of `key` comes before that predecessor — and only records at the same
 * distance from `key` are ordered by `supersededAtMs`, then key: two retirements can carry the
 * same millisecond (events published together), so time alone could put a link before its cause.
 */
export async function walkSupersedeChain(key: string, lookups: ChainLookups, maxLength: number): Promise<LongTermRecord[]> {
  const start = await lookups.load(key);
  if (start === undefined) return [];
  const seen = new Set<string>([start.key]);
  const before: LongTermRecord[] = [];
  const depth = new Map<string, number>();
  let frontier = [start.key];
  let level = 0;
  while (frontier.length > 0 && before.length + 1 < maxLength) {
    level += 1;
    const next: string[] = [];
    for (const target of frontier) {
      for (const record of await lookups.predecessors(target)) {
        if (seen.has(record.key) || before.length + 1 >= maxLength) continue;
        seen.add(record.key);
        depth.set(record.key, level);
        before.push(record);
        next.push(record.key);
      }
    }
    frontier = next;
  }
  before.sort((a, b) => (depth.get(b.key) ?? 0) - (depth.get(a.key) ?? 0) || a.supersededAtMs - b.supersededAtMs || compareKeys(a.key, b.key));
  const chain = [...before, start];
  let current = start;
  while (current.supersededBy !== '' && chain.length < maxLength && !seen.has(current.supersededBy)) {
    const replacement = await lookups.load(current.supersededBy);
    if (replacement === undefined) break;
    seen.add(replacement.key);
    chain.push(replacement);
    current = replacement;
  }
  return chain;
}
