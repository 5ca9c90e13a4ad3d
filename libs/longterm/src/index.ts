/**
 * @packageDocumentation
 * The long-term memory tier: the backends behind one `LongTermBackend` port (`memory://`,
 * `sqlite://`, `redis://`, `postgresql://`, `bigtable://`, `firestore://`), each enforcing the seq guard with its own atomic
 * primitive; URI parsing that imports no client; retention, supersede and restore; the
 * memory-store wire protocol and its NATS client; an in-process adapter; backend-to-backend copy.
 * Importing this module loads no database client: each is imported when its backend is opened.
 */

// URIs, redaction, errors
export { LongTermBackendKind } from './long-term-backend-kind.js';
export { parseLongTermUri, DEFAULT_REDIS_NAMESPACE, DEFAULT_POSTGRES_SCHEMA, DEFAULT_FIRESTORE_COLLECTION } from './long-term-uri.js';
export type { LongTermUri } from './long-term-uri.js';
export { redactUri, redactSecrets, REDACTED } from './redact-uri.js';
export { LongTermUriError, LongTermArgumentError, LongTermRequestRefused } from './errors.js';

// the backend port, rows, validation, key order
export { MAX_HISTORY_LENGTH } from './long-term-backend.js';
export type { LongTermBackend } from './long-term-backend.js';
export { UpsertVerdict } from './upsert-verdict.js';
export { rowFromRecord, rowFromBytes } from './long-term-row.js';
export type { LongTermRow } from './long-term-row.js';
export { MAX_LONG_TERM_KEY_BYTES, MAX_ENTITY_KEY_BYTES, MAX_LONG_TERM_LIMIT } from './long-term-validation.js';
export { compareKeys, prefixUpperBound } from './key-order.js';

// backends
export { openLongTermBackend } from './open-long-term-backend.js';
export type { OpenLongTermBackendOptions } from './open-long-term-backend.js';
export { MemoryLongTermBackend } from './backends/memory-long-term-backend.js';
export { SqliteLongTermBackend, SQLITE_LONG_TERM_DDL, LONG_TERM_TABLE } from './backends/sqlite-long-term-backend.js';
export { RedisLongTermBackend } from './backends/redis-long-term-backend.js';
export { PostgresLongTermBackend } from './backends/postgres-long-term-backend.js';
export { BigtableLongTermBackend } from './backends/bigtable-long-term-backend.js';
export { FirestoreLongTermBackend } from './backends/firestore-long-term-backend.js';
export { bigtableRowKey, bigtableEntityPrefix, BIGTABLE_FAMILY } from './backends/bigtable-layout.js';
export { firestoreDocumentId, firestoreEntityDigest } from './backends/firestore-layout.js';
export type { PostgresOpenOptions } from './backends/postgres-long-term-backend.js';
export { postgresLongTermDdl, longTermMigrations, LONG_TERM_MIGRATION_TABLE, LONG_TERM_MIGRATION_LOCK_TABLE } from './backends/postgres-schema.js';

// lifecycle: retention, supersede, history
export { resolveRetentionMs, expiresAtFor, validateRetentionOverrides } from './lifecycle/retention.js';
export type { RetentionOverrides } from './lifecycle/retention.js';
export { supersede, restore } from './lifecycle/supersede.js';
export type { LifecycleWriteOptions } from './lifecycle/supersede.js';
export { walkSupersedeChain } from './lifecycle/supersede-chain.js';
export type { ChainLookups } from './lifecycle/supersede-chain.js';

// the memory-store protocol
export { MemoryOp, isMemoryOp, MEMORY_STORE_QUEUE } from './protocol/memory-op.js';
export { MemoryErrorCode, isRetryableMemoryError } from './protocol/memory-error-code.js';
export {
  MEMORY_PROTOCOL_VERSION,
  encodeMemoryRequest,
  decodeMemoryRequest,
  encodeMemoryResult,
  encodeMemoryError,
  decodeMemoryResponse,
  MemoryProtocolError,
} from './protocol/memory-protocol.js';
export type { MemoryRequest, MemoryResults, MemoryResponse, MemoryErrorBody } from './protocol/memory-protocol.js';
export {
  ERASE_OP,
  MAX_ERASE_SHARDS,
  encodeEraseRequest,
  decodeEraseRequest,
  encodeEraseResult,
  decodeEraseResponse,
} from './protocol/erasure-protocol.js';
export type { EraseRequest, ErasureReport, EraseResponse } from './protocol/erasure-protocol.js';

// clients and copy
export { NatsLongTermStore, DEFAULT_LONG_TERM_TIMEOUT_MS } from './client/nats-long-term-store.js';
export type { NatsLongTermStoreOptions } from './client/nats-long-term-store.js';
export { InProcessLongTermStore } from './client/in-process-long-term-store.js';
export type { InProcessLongTermStoreOptions } from './client/in-process-long-term-store.js';
export { withDeadline, DeadlineExceeded } from './with-deadline.js';
export { copyLongTerm, copyRows } from './copy-long-term.js';
export type { CopyLongTermOptions, CopyLongTermReport } from './copy-long-term.js';
