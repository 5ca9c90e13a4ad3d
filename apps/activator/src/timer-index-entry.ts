import type { TimerDoc, TimerKind, TimerOwner } from '#core';

/**
 * The value stored per key in `AGENTS_TIMERS` under `p<NNNN>.<agent>.<keyToken>`: the key's
 * timers, so a new partition owner can rebuild its schedule without reading every state document.
 * Derived data: the state document stays the authority, and a stale entry only fires a timer
 * message the actor ignores.
 */
export interface TimerIndexEntry {
  readonly owner: TimerOwner;
  readonly timers: readonly TimerDoc[];
}

interface StoredEntry {
  readonly v: 1;
  readonly agent: string;
  readonly key: string;
  readonly timers: readonly { readonly id: string; readonly kind: number; readonly dueAtMs: number }[];
}

/** Encodes an index entry (versioned JSON). */
export function encodeTimerIndexEntry(entry: TimerIndexEntry): Uint8Array {
  const stored: StoredEntry = {
    v: 1,
    agent: entry.owner.agent,
    key: Buffer.from(entry.owner.entityKey).toString('base64'),
    timers: entry.timers.map((t) => ({ id: t.timerId, kind: t.kind, dueAtMs: t.dueAtMs })),
  };
  return new TextEncoder().encode(JSON.stringify(stored));
}

/** Decodes an index entry; undefined for anything this version cannot read. */
export function decodeTimerIndexEntry(stateKey: string, bytes: Uint8Array): TimerIndexEntry | undefined {
  try {
    const stored = JSON.parse(new TextDecoder().decode(bytes)) as StoredEntry;
    if (stored.v !== 1) return undefined;
    return {
      owner: { stateKey, agent: stored.agent, entityKey: new Uint8Array(Buffer.from(stored.key, 'base64')) },
      timers: stored.timers.map((t) => ({ timerId: t.id, kind: t.kind as TimerKind, dueAtMs: t.dueAtMs })),
    };
  } catch {
    return undefined;
  }
}
