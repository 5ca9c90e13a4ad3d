/**
 * Reads what a deployment holds about one (agent, key) into a key snapshot (docs/replay.md): the
 * committed state, the key's inbox lane, its outputs, tool intents, approval requests and error
 * records, the effector's records of its tool intents, and its replay journal (the model responses
 * of its completed activations, decision 0073). Read-only: it uses ordered consumers
 * (ephemeral, deleted when done) and KV gets, so taking a snapshot changes nothing and can be
 * repeated; what it copies is a moment's view (a key that is being activated may be caught between
 * a commit and its publish, which a replay then reports).
 */
import { DeliverPolicy, jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  CURRENT_SNAPSHOT_VERSION,
  decodeActorDocument,
  decodeErrorRecord,
  decodeToolIntent,
  IntentKind,
  redactKeySnapshot,
  snapshotBlob,
  type KeySnapshot,
  type RecordedEffect,
  type RecordedMessage,
} from '#core';
import { encodeKeyToken, entityDigest, erasureScope, type Topology } from '#routing';
import { fromMsgHdrs } from '#transport';

/** What to snapshot. */
export interface SnapshotRequest {
  readonly agent: string;
  readonly key: Uint8Array;
  /** Strip the raw key and every payload (for sharing). */
  readonly redact: boolean;
  /** The exporter's clock (recorded as `takenAtMs`). */
  readonly nowMs: number;
}

/** Every stored message of `stream` on `filter`, in stream order. */
async function readFiltered(js: JetStreamClient, stream: string, filter: string): Promise<RecordedMessage[]> {
  const consumer = await js.consumers.get(stream, { filter_subjects: filter, deliver_policy: DeliverPolicy.All });
  const { num_pending: pending } = await consumer.info();
  const out: RecordedMessage[] = [];
  if (pending === 0) return out;
  const messages = await consumer.consume();
  for await (const msg of messages) {
    out.push({ streamSeq: msg.seq, subject: msg.subject, headers: fromMsgHdrs(msg.headers), data: snapshotBlob(msg.data) });
    if (msg.info.pending === 0) break;
  }
  await messages.close();
  return out;
}

/**
 * The key's replay journal; empty when the deployment has no journal stream yet (provisioned by a
 * binary before decision 0073): such a snapshot replays as a version 1 snapshot would.
 */
async function readJournal(js: JetStreamClient, topology: Topology, agent: string, key: Uint8Array): Promise<RecordedMessage[]> {
  try {
    return await readFiltered(js, topology.streams.journal.name, topology.journal(agent, entityDigest(key)));
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) return [];
    throw error;
  }
}

const sameKey = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** Takes the snapshot (see the file comment). */
export async function exportKeySnapshot(nc: NatsConnection, topology: Topology, request: SnapshotRequest): Promise<KeySnapshot> {
  const { agent, key } = request;
  const token = encodeKeyToken(key);
  const scope = erasureScope(topology, token);
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const kvm = new Kvm(nc);

  const stateBucket = await kvm.open(topology.buckets.state, { bindOnly: true });
  const entry = await stateBucket.get(topology.stateKey(agent, token));
  const stateBytes = entry !== null && entry.operation === 'PUT' ? entry.value : undefined;
  const lastAppliedSeq = stateBytes === undefined ? 0 : decodeActorDocument(stateBytes).lastAppliedSeq;

  const inboxInfo = await jsm.streams.info(topology.streams.inbox.name);
  const inbox = await readFiltered(js, topology.streams.inbox.name, `${topology.prefix}.inbox.${scope.partition}.${agent}.${token}.*`);
  const outputs = await readFiltered(js, topology.streams.output.name, topology.output(agent, token));
  const approvals = await readFiltered(js, topology.streams.intents.name, topology.approvalRequests(agent, token));
  // Tool intents are addressed by tool and error records by reason: scan the agent's and keep the key's.
  const tools = (await readFiltered(js, topology.streams.intents.name, `${topology.prefix}.intents.${agent}.*`)).filter((m) => {
    try {
      return sameKey(decodeToolIntent(m.data.data as Uint8Array).entityKey, key);
    } catch {
      return false;
    }
  });
  const errors = (await readFiltered(js, topology.streams.errors.name, topology.errorsFilter(agent))).filter((m) => {
    try {
      return sameKey(decodeErrorRecord(m.data.data as Uint8Array).entityKey, key);
    } catch {
      return false;
    }
  });

  const journal = await readJournal(js, topology, agent, key);

  const effectsBucket = await kvm.open(topology.buckets.effects, { bindOnly: true });
  const effects: RecordedEffect[] = [];
  for (const intent of tools) {
    const id = decodeToolIntent(intent.data.data as Uint8Array);
    if (id.kind === IntentKind.Approval) continue;
    const record = await effectsBucket.get(id.intentId);
    if (record !== null && record.operation === 'PUT') effects.push({ intentId: id.intentId, revision: record.revision, value: snapshotBlob(record.value) });
  }

  const snapshot: KeySnapshot = {
    version: CURRENT_SNAPSHOT_VERSION,
    agent,
    key: snapshotBlob(key),
    takenAtMs: request.nowMs,
    redacted: false,
    source: { prefix: topology.prefix, partitions: topology.partitions, inboxFirstSeq: inboxInfo.state.first_seq },
    state: stateBytes === undefined || entry === null ? undefined : { revision: entry.revision, document: snapshotBlob(stateBytes) },
    inbox: inbox.map((m) => ({ ...m, applied: m.streamSeq <= lastAppliedSeq })),
    outputs,
    intents: [...approvals, ...tools].sort((a, b) => a.streamSeq - b.streamSeq),
    errors,
    effects,
    journal,
  };
  return request.redact ? redactKeySnapshot(snapshot, token) : snapshot;
}
