/**
 * The key snapshot files of format version 1, as values: what the golden spec encodes and compares
 * with the files in `v1/`. Fixed bytes only (no clock, no randomness). The corpus may only grow.
 */
import { encodeActorDocument } from '../../actor/state-codec.js';
import { emptyActorDocument } from '../../actor/actor-document.js';
import { encodeInboxEnvelope } from '../../actor/inbox-codec.js';
import type { KeySnapshot } from '../key-snapshot.js';
import { redactKeySnapshot, snapshotBlob } from '../snapshot-codec.js';

const utf8 = new TextEncoder();
const KEY = utf8.encode('order-8');
const TOKEN = 'order-8';
const T0 = 1_700_000_000_000;

const state = encodeActorDocument({ ...emptyActorDocument('refund', KEY), seq: 1, lastAppliedSeq: 1, ownerEpoch: 3 });

/** A snapshot with one element of each list. */
export const fullSnapshotV1: KeySnapshot = {
  version: 1,
  agent: 'refund',
  key: snapshotBlob(KEY),
  takenAtMs: T0 + 60_000,
  redacted: false,
  source: { prefix: 'agents', partitions: 4, inboxFirstSeq: 1 },
  state: { revision: 7, document: snapshotBlob(state) },
  inbox: [
    {
      streamSeq: 1,
      subject: `agents.inbox.2.refund.${TOKEN}.event`,
      headers: [
        { name: 'Nats-Msg-Id', value: 'ingest-1' },
        { name: 'Agents-Key', value: TOKEN },
      ],
      data: snapshotBlob(encodeInboxEnvelope({ entityKey: KEY, eventTimeMs: T0, payload: { kind: 'event', event: utf8.encode('{"orderId":"o-8","amount":400}') } })),
      applied: true,
    },
  ],
  outputs: [{ streamSeq: 4, subject: `agents.output.refund.${TOKEN}`, headers: [{ name: 'Agents-Seq', value: '0' }], data: snapshotBlob(utf8.encode('{"status":"refunded"}')) }],
  intents: [{ streamSeq: 2, subject: `agents.approval-requests.refund.${TOKEN}`, headers: [{ name: 'Nats-Msg-Id', value: 'intent-1' }], data: snapshotBlob(utf8.encode('intent bytes')) }],
  errors: [],
  effects: [{ intentId: 'intent-2', revision: 5, value: snapshotBlob(utf8.encode('{"state":"done"}')) }],
  // Version 1 files have no journal: they read with an empty one.
  journal: [],
};

/** The same snapshot redacted for sharing. */
export const redactedSnapshotV1: KeySnapshot = redactKeySnapshot(fullSnapshotV1, TOKEN);

/** The golden files of v1 and the snapshot each holds. */
export const SNAPSHOT_CORPUS_V1: readonly { readonly file: string; readonly snapshot: KeySnapshot }[] = [
  { file: 'key-snapshot-full.json', snapshot: fullSnapshotV1 },
  { file: 'key-snapshot-redacted.json', snapshot: redactedSnapshotV1 },
];
