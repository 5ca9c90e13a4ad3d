/**
 * A key snapshot: what the cluster holds about one (agent, entity key), copied into one file for
 * debugging and offline replay (docs/replay.md). The committed state document and every stored
 * message are carried verbatim (their wire bytes), so a snapshot replays with the same codecs the
 * services use. A snapshot is personal data outside the cluster (docs/memory.md): it carries the
 * key's digest beside the key, and a redacted snapshot carries the digest only, with every payload
 * reduced to its size and digest.
 *
 * Pure types and constants; importing this file has no side effects.
 */
import type { HeaderDoc } from '../actor/actor-document.js';

/** The `format` field every snapshot file starts with. */
export const KEY_SNAPSHOT_FORMAT = 'nats-agents/key-snapshot';

/**
 * The snapshot format version this binary writes (and the newest it reads). Additive fields do not
 * bump it (readers ignore fields they do not know); anything else does, and the previous version's
 * golden files stay readable (libs/core/src/snapshot/golden).
 *
 * - 1: state, inbox, outputs, intents, error records, effector records.
 * - 2: adds `journal`, the key's replay journal messages (decision 0073). A version 1 file reads
 *   with an empty journal: its finished model-calling activations replay with a scripted model only.
 */
export const CURRENT_SNAPSHOT_VERSION = 2;

/**
 * Bytes as a snapshot carries them: always their size and lowercase hex sha256, and the bytes
 * themselves unless the snapshot is redacted.
 */
export interface SnapshotBlob {
  readonly bytes: number;
  readonly sha256: string;
  /** Absent in a redacted snapshot. */
  readonly data?: Uint8Array;
}

/** One message as a stream stored it. */
export interface RecordedMessage {
  /** The stream sequence (for inbox messages: the element's `inboxSeq`). */
  readonly streamSeq: number;
  /** In a redacted snapshot the key's token is replaced by `sha256-<digest>`. */
  readonly subject: string;
  /** The stored headers in stored order (`Nats-Msg-Id` included). */
  readonly headers: readonly HeaderDoc[];
  readonly data: SnapshotBlob;
}

/** An inbox message of the key, and whether the committed state had applied it when taken. */
export interface RecordedInboxMessage extends RecordedMessage {
  /** `streamSeq <= lastAppliedSeq` of the committed state. */
  readonly applied: boolean;
}

/** The effector's record of one tool intent of the key (its dedup entry: claim or result). */
export interface RecordedEffect {
  readonly intentId: string;
  readonly revision: number;
  readonly value: SnapshotBlob;
}

/** Where the snapshot was taken: enough to rebuild the deployment's subjects offline. */
export interface SnapshotSource {
  /** The subject prefix (`agents`). */
  readonly prefix: string;
  readonly partitions: number;
  /**
   * The inbox stream's first stored sequence when the snapshot was taken. Above 1, older messages
   * aged out (`streams.inboxMaxAgeMs`) and the key's earliest elements may be gone.
   */
  readonly inboxFirstSeq: number;
}

/** The committed state document of the key (`ActorState` bytes) and its KV revision. */
export interface SnapshotState {
  readonly revision: number;
  readonly document: SnapshotBlob;
}

export interface KeySnapshot {
  readonly version: number;
  readonly agent: string;
  /** The entity key; `sha256` is the entity digest erasure names it by. No `data` when redacted. */
  readonly key: SnapshotBlob;
  /** When the snapshot was taken (epoch ms, the exporter's clock; informational). */
  readonly takenAtMs: number;
  readonly redacted: boolean;
  readonly source: SnapshotSource;
  /** Undefined for a key that never committed. */
  readonly state: SnapshotState | undefined;
  /** The key's inbox elements still stored, in stream order, applied and not yet applied. */
  readonly inbox: readonly RecordedInboxMessage[];
  /** The key's outputs still stored. */
  readonly outputs: readonly RecordedMessage[];
  /** The key's tool intents and approval requests still stored. */
  readonly intents: readonly RecordedMessage[];
  /** The error records naming the key still stored. */
  readonly errors: readonly RecordedMessage[];
  /** The effector's records of the key's tool intents still held. */
  readonly effects: readonly RecordedEffect[];
  /**
   * The key's replay journal messages still stored, in stream order: one per completed activation
   * that called the model, its model responses as an `LlmCacheBlob` with the activation seq in
   * `Agents-Seq` (decision 0073). Empty in a version 1 file, and for a deployment that journals nothing.
   */
  readonly journal: readonly RecordedMessage[];
}
