import { entityKeyHex } from './entity-key-hex.js';
import { IdNamespace } from './namespaces.js';
import { uuidV5 } from './uuid-v5.js';

/**
 * `Nats-Msg-Id` of output `index` of the activation committed at `seq` of `agent`/`key`.
 * A republish after a crash carries the same id, so the stream stores it once.
 */
export function outputMessageId(agent: string, key: Uint8Array, seq: number, index: number): string {
  return uuidV5(`${agent}|${entityKeyHex(key)}|${seq}|${index}`, IdNamespace.Output);
}

/**
 * `Nats-Msg-Id` of the replay journal message of the activation committed at `commitSeq` (the
 * key's committed attempts before it) of `agent`/`key`. A redelivered or republished commit
 * carries the same id, so the journal stream stores it once (decision 0073).
 */
export function journalMessageId(agent: string, key: Uint8Array, commitSeq: number): string {
  return uuidV5(`${agent}|${entityKeyHex(key)}|${commitSeq}`, IdNamespace.Journal);
}

/**
 * `Nats-Msg-Id` of the error record produced by inbox element `inboxSeq` of `agent`/`key`.
 * Keyed by the inbox sequence (failures do not advance seq), so each failed element has one
 * record however often it is redelivered.
 */
export function errorMessageId(agent: string, key: Uint8Array, inboxSeq: number): string {
  return uuidV5(`${agent}|${entityKeyHex(key)}|${inboxSeq}`, IdNamespace.ErrorRecord);
}

/**
 * The id of the re-publication of the element at `stream`/`seq` by a redrive: the message id of
 * the re-published event and of its audit record, so running the same redrive twice publishes once.
 */
export function redriveMessageId(stream: string, seq: number): string {
  return uuidV5(`redrive|${stream}|${seq}`, IdNamespace.Redrive);
}

/**
 * `Nats-Msg-Id` of an ingress error record about ingest message `ingestSeq` of `stream`, stored at
 * `storedAtNanos` (the key may be unreadable, so the source message identifies it; the timestamp
 * keeps the id unpredictable, as for {@link ingestForwardMessageId}).
 */
export function ingressErrorMessageId(stream: string, ingestSeq: number, storedAtNanos: bigint): string {
  return uuidV5(`error|${stream}|${ingestSeq}|${storedAtNanos}`, IdNamespace.Ingest);
}

/**
 * `Nats-Msg-Id` under which ingress forwards ingest message `ingestSeq` of `stream` into the
 * inbox: a redelivery to ingress forwards the same id, so the inbox holds one copy.
 *
 * `storedAtNanos` is the ingest message's stream timestamp, assigned by the server when it stored
 * the message: fixed for every redelivery (and for a standby ingress reading the same message), but
 * unknown to anyone before the message exists. Without it the id was a function of the next ingest
 * sequence alone, and a publisher with direct rights on the inbox could pre-publish messages
 * carrying the next forwards' ids so the genuine forwards were dropped as duplicates (issue 13).
 */
export function ingestForwardMessageId(stream: string, ingestSeq: number, storedAtNanos: bigint): string {
  return uuidV5(`${stream}|${ingestSeq}|${storedAtNanos}`, IdNamespace.Ingest);
}

/**
 * `Nats-Msg-Id` of the firing of timer `timerId` due at `dueAtMs` on `agent`/`key`: the
 * partition owner may publish it more than once (after a takeover), the lane stores it once.
 */
export function timerMessageId(agent: string, key: Uint8Array, timerId: string, dueAtMs: number): string {
  return uuidV5(`${agent}|${entityKeyHex(key)}|${timerId}|${dueAtMs}`, IdNamespace.Timer);
}
