/**
 * Dead-letter redrive: re-publishes the events that failed with a given reason to their keys, once.
 * Each error record names the inbox message it is about (stream and sequence); the original
 * envelope is read back from the inbox stream and its event published into the same key's lane
 * (`publishDirect`, so a shard key stays the shard it was), in error-stream order, which is each
 * key's commit order. Importing this file has no side effects.
 */
import { createHash } from 'node:crypto';
import { DeliverPolicy } from '@nats-io/jetstream';
import type { AgentsClient } from './agents-client.js';
import { decodeErrorRecord, decodeInboxEnvelope, errorRecordSource, redriveMessageId, type ErrorReason } from '#core';

/** What to redrive. */
export interface RedriveOptions {
  readonly agent: string;
  readonly reason: ErrorReason | string;
  /** Only this key (raw bytes). */
  readonly key?: Uint8Array;
  /** Only records stored at or after this time (epoch ms). */
  readonly sinceMs?: number;
  /** Who asked: written to the audit record. */
  readonly requestedBy: string;
  /** The wall clock of the audit record (the CLI passes `Date.now`). */
  readonly nowMs: number;
}

/** What one redrive did, per record: published now, already redriven before, or not redrivable. */
export interface RedriveReport {
  readonly published: number;
  readonly alreadyRedriven: number;
  /** Records naming no element, or whose element the inbox no longer holds (retention), or not an event. */
  readonly skipped: readonly { readonly seq: number; readonly why: string }[];
}

/** The audit record of one re-publication: what was redriven, by whom, when; the key only as a digest. */
export interface RedriveAudit {
  readonly v: 1;
  readonly redriveId: string;
  readonly agent: string;
  readonly reason: string;
  /** sha256 of the entity key (hex): the audit stream survives erasure, so it never holds the key. */
  readonly keyDigest: string;
  readonly source: { readonly stream: string; readonly seq: number };
  readonly requestedBy: string;
  readonly atMs: number;
}

/**
 * Re-publishes the original events of `agent`'s error records with `reason`.
 *
 * Idempotent: the event goes out with the derived id `redriveMessageId(stream, seq)` (the inbox
 * stream drops a repeat inside its duplicate window), and an audit record under
 * `<prefix>.audit.redrive.<id>` is written after it; a record whose audit entry exists is not
 * published again, whenever the redrive is repeated. A crash between the two leaves no audit
 * entry: the repeat publishes the same id again, which the duplicate window absorbs.
 */
export async function redrive(client: AgentsClient, options: RedriveOptions): Promise<RedriveReport> {
  const topology = client.topology;
  const jsm = await client.js.jetstreamManager();
  const subject = topology.errors(options.agent, options.reason as ErrorReason);
  const skipped: { seq: number; why: string }[] = [];
  let published = 0;
  let alreadyRedriven = 0;
  const consumer = await client.js.consumers.get(topology.streams.errors.name, {
    filter_subjects: subject,
    ...(options.sinceMs === undefined ? { deliver_policy: DeliverPolicy.All } : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(options.sinceMs).toISOString() }),
  });
  const pending = (await consumer.info()).num_pending;
  if (pending === 0) return { published, alreadyRedriven, skipped };
  const messages = await consumer.fetch({ max_messages: pending, expires: 10_000 });
  for await (const msg of messages) {
    const record = decodeErrorRecord(msg.data);
    if (options.key !== undefined && !Buffer.from(record.entityKey).equals(Buffer.from(options.key))) continue;
    const source = errorRecordSource(msg.data);
    if (source === undefined) {
      skipped.push({ seq: msg.seq, why: 'the record names no element (written before records carried their source)' });
      continue;
    }
    const id = redriveMessageId(source.stream, source.seq);
    const auditSubject = `${topology.prefix}.audit.redrive.${id}`;
    const audited = await jsm.streams.getMessage(topology.streams.audit.name, { last_by_subj: auditSubject }).catch(() => null);
    if (audited) {
      alreadyRedriven += 1;
      continue;
    }
    const original = await jsm.streams.getMessage(source.stream, { seq: source.seq }).catch(() => null);
    if (!original) {
      skipped.push({ seq: msg.seq, why: `${source.stream} no longer holds seq ${source.seq}` });
      continue;
    }
    const envelope = decodeInboxEnvelope(original.data);
    if (envelope.payload.kind !== 'event') {
      skipped.push({ seq: msg.seq, why: `${source.stream} seq ${source.seq} is a ${envelope.payload.kind}, not an event` });
      continue;
    }
    await client.publishDirect(options.agent, envelope.entityKey, envelope.payload.event, { msgId: id });
    const audit: RedriveAudit = {
      v: 1,
      redriveId: id,
      agent: options.agent,
      reason: options.reason,
      keyDigest: createHash('sha256').update(envelope.entityKey).digest('hex'),
      source,
      requestedBy: options.requestedBy,
      atMs: options.nowMs,
    };
    await client.js.publish(auditSubject, JSON.stringify(audit), { msgID: id });
    published += 1;
  }
  return { published, alreadyRedriven, skipped };
}

