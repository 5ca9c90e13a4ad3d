import type { JetStreamManager } from '@nats-io/jetstream';
import type { DocumentCheck } from '#core';

/** Where the claims of a stored document can be checked. */
export interface DocumentCheckSources {
  readonly jsm: JetStreamManager;
  /** The inbox stream: no element can have a sequence above its last one. */
  readonly inboxStream: string;
  /** The stream of the leases bucket: every owner epoch is one of its revisions. */
  readonly leasesStream: string;
}

/**
 * The activator's check of a stored document that would fence the writer or make an element a
 * duplicate: an owner epoch is a revision of the leases bucket, so one above the bucket's last
 * sequence was never issued; an applied sequence above the inbox's last sequence names an element
 * that does not exist. Either means the document was forged (or corrupted into a valid shape):
 * the key is quarantined rather than fencing the partition or acking its events as duplicates.
 *
 * Both bounds only grow, so the highest seen is remembered and the server is asked only when a
 * document exceeds it (never on the ordinary path; at most once per forged read). A failed
 * lookup throws, and the runtime retries the element.
 */
export function documentCheck(sources: DocumentCheckSources): DocumentCheck {
  let leasesLast = 0;
  let inboxLast = 0;
  const lastSeq = async (stream: string): Promise<number> => (await sources.jsm.streams.info(stream)).state.last_seq;
  return async (doc) => {
    if (doc.ownerEpoch > leasesLast) leasesLast = Math.max(leasesLast, await lastSeq(sources.leasesStream));
    if (doc.ownerEpoch > leasesLast) return `its ownerEpoch ${doc.ownerEpoch} is above every lease epoch issued (${leasesLast})`;
    if (doc.lastAppliedSeq > inboxLast) inboxLast = Math.max(inboxLast, await lastSeq(sources.inboxStream));
    if (doc.lastAppliedSeq > inboxLast) return `its lastAppliedSeq ${doc.lastAppliedSeq} is above the inbox's last sequence (${inboxLast})`;
    return undefined;
  };
}
