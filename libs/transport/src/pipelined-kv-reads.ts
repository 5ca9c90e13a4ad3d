import { Bucket, type KV } from '@nats-io/kv';
import type { Msg } from '@nats-io/transport-node';
import { kvStreamName } from '#routing';
import type { PubAckPipeline } from './pub-ack-pipeline.js';

const EMPTY = new Uint8Array(0);

/** A key's last entry: its value, its revision (the stream sequence) and whether it is a value or a removal marker. */
export interface KvLastEntry {
  readonly value: Uint8Array;
  readonly revision: number;
  readonly operation: 'PUT' | 'DEL' | 'PURGE';
}

/**
 * The reads of one KV bucket on the hot path: a key's last entry, read as `kv.get` reads it from
 * a bucket that allows direct gets (a request to `$JS.API.DIRECT.GET.KV_<bucket>.$KV.<bucket>.<key>`
 * that the server answers with the stored message as it is), but sent through the connection's
 * {@link PubAckPipeline}: no request object, timer, `RequestError`, `DirectMsgImpl` or
 * `KvStoreEntry` per read. A cold actor's load is one such read (decision 0072).
 *
 * A bucket bound without direct gets (`allow_direct: false`, or stream info unreadable at bind)
 * is read through `kv.get`, as before. A missing key, or a reply for another subject, reads as
 * `null`, as with the client. No answer within the pipeline's timeout is `PubAckTimeout`, and any
 * other refusal an `Error` naming the server's status: ambiguous for nobody (a read changes
 * nothing), the caller retries or re-reads. A direct get answered by a lagging replica can only be
 * older; the revision-checked commit that follows refuses it. Nothing is cached here, so a
 * redelivery, replay or restart reads the store afresh.
 */
export class PipelinedKvReads {
  private readonly direct: boolean;
  private readonly requestPrefix: string;
  private readonly subjectPrefix: string;

  /** `kv` is the bound bucket named `bucket` (no JetStream domain, as for every runtime bucket). */
  constructor(
    private readonly kv: KV,
    private readonly acks: PubAckPipeline,
    bucket: string,
  ) {
    this.direct = kv instanceof Bucket && kv.direct;
    this.subjectPrefix = `$KV.${bucket}.`;
    this.requestPrefix = `$JS.API.DIRECT.GET.${kvStreamName(bucket)}.${this.subjectPrefix}`;
  }

  /** The last entry of `key` (derived by the caller, so unvalidated), or `null` when it has none. */
  get(key: string): Promise<KvLastEntry | null> {
    if (!this.direct) return this.kv.get(key).then((entry) => (entry === null ? null : { value: entry.value, revision: entry.revision, operation: entry.operation }));
    const subject = this.subjectPrefix + key;
    return this.acks.request(this.requestPrefix + key, EMPTY, undefined, (reply) => readDirectEntry(reply, subject));
  }
}

/**
 * A direct get's reply (nats-server 2.9+): the stored message's headers and payload, with the
 * server's `Nats-Subject` and `Nats-Sequence` added; 404 when the subject holds no message.
 *
 * @throws {Error} on any other status, or a reply without a sequence.
 */
function readDirectEntry(reply: Msg, subject: string): KvLastEntry | null {
  const headers = reply.headers;
  if (headers === undefined) throw new Error(`unreadable direct get reply for ${subject}: no headers`);
  if (headers.code === 404) return null;
  if (headers.hasError) throw new Error(`direct get of ${subject} refused: ${headers.code} ${headers.description}`);
  // As `kv.get`: an entry stored under another subject is not this key's (possible only for keys with wildcards).
  if (headers.get('Nats-Subject') !== subject) return null;
  const revision = Number(headers.get('Nats-Sequence'));
  if (!Number.isSafeInteger(revision) || revision < 1) throw new Error(`direct get of ${subject} answered without a sequence`);
  const marker = headers.get('KV-Operation');
  return { value: reply.data, revision, operation: marker === 'DEL' || marker === 'PURGE' ? marker : 'PUT' };
}
