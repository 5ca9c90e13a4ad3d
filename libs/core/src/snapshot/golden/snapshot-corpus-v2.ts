/**
 * The key snapshot files of format version 2, as values: version 1's corpus plus the replay journal
 * (decision 0073), one journaled activation holding a full and a digest-only response. Fixed bytes
 * only (no clock, no randomness). The corpus may only grow.
 */
import { createHash } from 'node:crypto';
import { journalMessageId } from '../../ids/message-id.js';
import { encodeJournalPayload } from '../../replay/replay-journal.js';
import type { KeySnapshot } from '../key-snapshot.js';
import { redactKeySnapshot, snapshotBlob } from '../snapshot-codec.js';
import { fullSnapshotV1 } from './snapshot-corpus-v1.js';

const utf8 = new TextEncoder();
const KEY = utf8.encode('order-8');
const DIGEST = createHash('sha256').update(KEY).digest('hex');
const T0 = 1_700_000_000_000;
const response = utf8.encode('{"text":"looks fine"}');

const journalPayload = encodeJournalPayload({
  entries: [
    { cacheKey: 'a'.repeat(64), response, responseDigest: createHash('sha256').update(response).digest(), createdAtMs: T0, lastAccessMs: T0, digestOnly: false },
    { cacheKey: 'b'.repeat(64), response: new Uint8Array(0), responseDigest: new Uint8Array(32).fill(7), createdAtMs: T0, lastAccessMs: T0, digestOnly: true },
  ],
  totalResponseBytes: response.length,
});

/** A snapshot with one element of each list, the journal included. */
export const fullSnapshotV2: KeySnapshot = {
  ...fullSnapshotV1,
  version: 2,
  journal: [
    {
      streamSeq: 5,
      subject: `agents.journal.refund.${DIGEST}`,
      headers: [
        { name: 'Agents-Agent', value: 'refund' },
        { name: 'Agents-Seq', value: '0' },
        { name: 'Agents-Event-Time', value: String(T0) },
        { name: 'Nats-Msg-Id', value: journalMessageId('refund', KEY, 0) },
      ],
      data: snapshotBlob(journalPayload),
    },
  ],
};

/** The same snapshot redacted for sharing. */
export const redactedSnapshotV2: KeySnapshot = redactKeySnapshot(fullSnapshotV2, 'order-8');

/** The golden files of v2 and the snapshot each holds. */
export const SNAPSHOT_CORPUS_V2: readonly { readonly file: string; readonly snapshot: KeySnapshot }[] = [
  { file: 'key-snapshot-full.json', snapshot: fullSnapshotV2 },
  { file: 'key-snapshot-redacted.json', snapshot: redactedSnapshotV2 },
];
