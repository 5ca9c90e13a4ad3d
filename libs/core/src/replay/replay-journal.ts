/**
 * The replay journal (decision 0073): a completed activation's model responses, published once with
 * its commit so an offline replay of that activation answers its model calls from the recording.
 *
 * A completed activation commits an empty replay cache (decision 0016), so without the journal its
 * responses are gone from the cluster the moment it commits. The journal message is one more outbox
 * entry of that commit: it is written in the same CAS as the state (invariant 1), republished after
 * a crash with the same derived message id (stored once), and published through the same pipeline as
 * the outputs. Only a commit whose cache holds entries writes one: an activation that never called
 * the model (nor resumed a suspension that did) costs nothing.
 *
 * The payload is the scope's cache as the state document stores it (`nats_agents.v1.LlmCacheBlob`:
 * cache keys, responses, digests; digest-only entries stay digest-only), so replay reads it with the
 * cache's own types. Pure; no side effects on import.
 */
import type { CacheBlobDoc, HeaderDoc, OutboxEntryDoc } from '../actor/actor-document.js';
import { decodeCacheBlob, encodeCacheBlob } from '../actor/state-codec.js';
import { journalMessageId } from '../ids/message-id.js';
import { HeaderName } from '../vocabulary/header-name.js';

/** The bytes of a journal message: `cache` as `nats_agents.v1.LlmCacheBlob` (the state codec's encoding of a cache). */
export function encodeJournalPayload(cache: CacheBlobDoc): Uint8Array {
  return encodeCacheBlob(cache);
}

/**
 * The cache entries a journal message carries.
 *
 * @throws {Error} (protobufjs') when the bytes are not an `LlmCacheBlob`; callers that read
 * recordings skip such a message rather than fail.
 */
export function decodeJournalPayload(bytes: Uint8Array): CacheBlobDoc {
  return decodeCacheBlob(bytes);
}

/** Where and what one completing commit journals. */
export interface JournalCommit {
  readonly agent: string;
  readonly key: Uint8Array;
  /** The key's committed attempts before this commit (what the message id derives from). */
  readonly commitSeq: number;
  /** The activation seq (`ctx.seq`) whose scope the entries answered; `Agents-Seq`. */
  readonly activationSeq: number;
  readonly eventTimeMs: number;
  /** The completed scope's replay cache. */
  readonly cache: CacheBlobDoc;
  /** Trace headers of the element. */
  readonly carried: readonly HeaderDoc[];
}

/**
 * The outbox entry journaling `commit.cache` on `subject` (`addressing.journal(agent, key)`), with
 * `Nats-Msg-Id` derived from (agent, key, commit seq): a redelivered element is a duplicate that
 * republishes this same entry, and the stream's duplicate window stores it once.
 */
export function journalEntry(subject: string, commit: JournalCommit): OutboxEntryDoc {
  return {
    subject,
    msgId: journalMessageId(commit.agent, commit.key, commit.commitSeq),
    payload: encodeJournalPayload(commit.cache),
    headers: [
      { name: HeaderName.Agent, value: commit.agent },
      { name: HeaderName.Seq, value: String(commit.activationSeq) },
      { name: HeaderName.EventTime, value: String(commit.eventTimeMs) },
      ...commit.carried,
    ],
  };
}
