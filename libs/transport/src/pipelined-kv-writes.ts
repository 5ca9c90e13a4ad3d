import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { OutgoingHeaders } from './outgoing-headers.js';
import type { PipelinedKvReads } from './pipelined-kv-reads.js';
import type { PubAckPipeline } from './pub-ack-pipeline.js';

const EXPECTED_LAST_SUBJECT_SEQUENCE = 'Nats-Expected-Last-Subject-Sequence';
const KV_OPERATION = 'KV-Operation';
const EMPTY = new Uint8Array(0);

/**
 * The writes of one KV bucket on the hot path, sent as the KV client sends them (a put is a
 * publish to `$KV.<bucket>.<key>`, optionally conditioned on the key's last revision; a delete
 * is the same with `KV-Operation: DEL` and no payload) but through the connection's
 * {@link PubAckPipeline}: no request object, timer or `RequestError` per write (decisions 0065,
 * 0067); reads, {@link create}'s included, are {@link PipelinedKvReads}' (decision 0072).
 *
 * Errors are the client's: a revision condition that does not hold is a `JetStreamApiError` with
 * `err_code` 10071 (see {@link isRevisionConflict}); no answer in time is `PubAckTimeout`, an
 * ambiguous outcome the caller resolves by re-reading, as with the client. Keys are the caller's,
 * unvalidated: every caller derives them (no JetStream domain, as for every runtime bucket).
 * Nothing is retried here; a redelivery or retry re-issues the same conditional write and the
 * condition decides.
 */
export class PipelinedKvWrites {
  private readonly subjectPrefix: string;

  /** `bucket` is the KV's name (its keys live on `$KV.<bucket>.<key>`); `reads` reads the same bucket, for {@link create}'s read. */
  constructor(
    private readonly reads: PipelinedKvReads,
    private readonly acks: PubAckPipeline,
    bucket: string,
  ) {
    this.subjectPrefix = `$KV.${bucket}.`;
  }

  /** Writes `value` under `key`; with `expectedRevision`, only if that is the key's last revision (0: the key has none). Resolves with the new revision. */
  async put(key: string, value: Uint8Array, expectedRevision?: number): Promise<number> {
    return (await this.acks.publish(this.subjectPrefix + key, value, expectedRevision === undefined ? undefined : expecting(expectedRevision))).seq;
  }

  /**
   * Writes `value` under `key` only if the key holds no value, as `kv.create` does: absent, or
   * deleted or purged (then conditioned on the marker's revision). A key holding a value is a
   * revision conflict, as is losing a race for a marker.
   */
  async create(key: string, value: Uint8Array): Promise<number> {
    try {
      return await this.put(key, value, 0);
    } catch (error) {
      if (!isRevisionConflict(error)) throw error;
      const entry = await this.reads.get(key);
      if (entry === null || (entry.operation !== 'DEL' && entry.operation !== 'PURGE')) throw error;
      return await this.put(key, value, entry.revision);
    }
  }

  /**
   * Marks `key` deleted (a reader sees no value; the history keeps the marker, as `kv.delete` leaves
   * it); with `expectedRevision`, only if that is still the key's last revision (a revision conflict
   * otherwise, and nothing is written).
   */
  async delete(key: string, expectedRevision?: number): Promise<void> {
    const h = expectedRevision === undefined ? new OutgoingHeaders() : expecting(expectedRevision);
    h.set(KV_OPERATION, 'DEL');
    await this.acks.publish(this.subjectPrefix + key, EMPTY, h);
  }
}

/** True when the server refused a write because the key's last revision was not the expected one. */
export function isRevisionConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function expecting(revision: number): OutgoingHeaders {
  return new OutgoingHeaders([{ name: EXPECTED_LAST_SUBJECT_SEQUENCE, value: String(revision) }]);
}
