/**
 * The operations of the memory-store service: the last token of its request subject
 * `<prefix>.memory.<op>` (`topology.memory(op)`). There is deliberately no raw erase: an entity is
 * erased only by the audited cascade on `<prefix>.admin.erase` (pause first, audit record after),
 * so a request on `<prefix>.memory.erase` is answered `unknown_op`.
 */
export const MemoryOp = {
  /** One record by key, or null (absent or expired). */
  Load: 'load',
  /** A bounded, key-ordered prefix scan of one (entity, agent). */
  Search: 'search',
  /** Seq-guarded upserts of encoded records; one verdict per record. */
  Upsert: 'upsert',
  /** The supersede chain through one key. */
  History: 'history',
} as const;
export type MemoryOp = (typeof MemoryOp)[keyof typeof MemoryOp];

const OPS = new Set<string>(Object.values(MemoryOp));

/** True for a member of {@link MemoryOp}. */
export function isMemoryOp(value: string): value is MemoryOp {
  return OPS.has(value);
}

/** The queue group every memory-store replica subscribes in, so each request reaches exactly one. */
export const MEMORY_STORE_QUEUE = 'memory-store';
