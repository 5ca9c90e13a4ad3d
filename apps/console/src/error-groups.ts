/**
 * The errors view: error records grouped by agent and reason, newest first inside a group, each
 * naming its key so the page links it to the key inspector. Pure.
 */

/** One error record as the console shows it. */
export interface ErrorRecordView {
  readonly seq: number;
  readonly agent: string;
  readonly reason: string;
  readonly detail: string;
  /** The key as text, and its canonical token (empty for a record about no readable key). */
  readonly key: string;
  readonly keyToken: string;
  readonly eventTimeMs: number;
  /** When the errors stream stored it. */
  readonly storedAtMs: number;
  /** True when the record names its inbox element, so `errors redrive` can re-publish it. */
  readonly redrivable: boolean;
}

/** One (agent, reason) group. */
export interface ErrorGroup {
  readonly agent: string;
  readonly reason: string;
  readonly count: number;
  readonly redrivable: number;
  readonly lastStoredAtMs: number;
  /** The newest records of the group (at most `perGroup`). */
  readonly records: readonly ErrorRecordView[];
}

/** Groups records (any order) by agent and reason; groups with the newest record first. */
export function groupErrors(records: readonly ErrorRecordView[], perGroup = 20): ErrorGroup[] {
  const groups = new Map<string, ErrorRecordView[]>();
  for (const record of records) {
    const id = `${record.agent}\u0000${record.reason}`;
    groups.set(id, [...(groups.get(id) ?? []), record]);
  }
  return [...groups.values()]
    .map((members) => {
      const sorted = [...members].sort((a, b) => b.seq - a.seq);
      const first = sorted[0] as ErrorRecordView;
      return {
        agent: first.agent,
        reason: first.reason,
        count: sorted.length,
        redrivable: sorted.filter((r) => r.redrivable).length,
        lastStoredAtMs: Math.max(...sorted.map((r) => r.storedAtMs)),
        records: sorted.slice(0, perGroup),
      };
    })
    .sort((a, b) => b.lastStoredAtMs - a.lastStoredAtMs || a.agent.localeCompare(b.agent) || a.reason.localeCompare(b.reason));
}
