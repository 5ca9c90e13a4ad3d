/**
 * The bounds of one key's replay cache (invariant 3). They decide what a commit keeps, never how
 * stored bytes decode, so changing them needs no state migration: a blob written under larger
 * bounds is brought back within these by the next insert.
 */

/** Most entries kept; the least recently used beyond it is evicted. Digest-only entries count. */
export const REPLAY_CACHE_MAX_ENTRIES = 64;

/** Entry lifetime from creation: an entry whose age exceeds this is expired (age exactly 6 h is live). Reads never extend it. */
export const REPLAY_CACHE_TTL_MS = 21_600_000;

/** Cap on the protobuf-encoded size of the whole `LlmCacheBlob`, not on one response. */
export const REPLAY_CACHE_BLOB_CAP_BYTES = 102_400;
