/**
 * The built-in long-term memory types and their default retention (seed 004): raw material
 * expires, derivations persist. Operators may define more types and override any retention.
 */
export const MemoryType = {
  /** A conversation turn: highest volume, lowest density; its value is what was distilled from it. */
  Turn: 'turn',
  /** An interaction, useful while recent enough to inform the next one. */
  Episodic: 'episodic',
  /** The cheap, lasting record of a conversation once its turns expire. */
  ThreadSummary: 'thread_summary',
  /** Cheap to keep, expensive to lose: correct it (supersede) rather than expire it. */
  Fact: 'fact',
  /** One per user, rebuilt on a cadence rather than expired. */
  UserSummary: 'user_summary',
  /** Derived behavioural rules, kept until corrected or erased. */
  Procedural: 'procedural',
} as const;
export type MemoryType = (typeof MemoryType)[keyof typeof MemoryType];

const DAY = 86_400_000;

/** Default retention per type in ms; 0 = indefinite. Unknown types are indefinite unless configured. */
export const DEFAULT_RETENTION_MS: Readonly<Record<string, number>> = {
  [MemoryType.Turn]: 30 * DAY,
  [MemoryType.Episodic]: 90 * DAY,
  [MemoryType.ThreadSummary]: 0,
  [MemoryType.Fact]: 0,
  [MemoryType.UserSummary]: 0,
  [MemoryType.Procedural]: 0,
};

/**
 * The retention of `type` in ms (0 = indefinite): the operator's override when one is set, else the
 * default, else indefinite. Pure; every writer of a typed record (a save, the expiry demotion) asks
 * here, so the two cannot disagree.
 */
export function retentionFor(type: string, overrides?: Readonly<Record<string, number>>): number {
  return overrides?.[type] ?? DEFAULT_RETENTION_MS[type] ?? 0;
}

/** The type a save gets when it names none. */
export const DEFAULT_MEMORY_TYPE: string = MemoryType.Fact;

/** The pattern of a memory type name (built-in or operator-defined). */
export const MEMORY_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
