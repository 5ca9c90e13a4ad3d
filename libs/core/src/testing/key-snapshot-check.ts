/**
 * The test kit's side of offline replay (docs/replay.md): check a new version of an agent against
 * snapshots taken from production, in a user's CI, with no NATS. The same replay as
 * `nats-agents replay`; time is each element's event time and activation timeouts run on a manual
 * clock, so a check costs no real time and always reports the same thing.
 */
import type { OutboxEntryDoc } from '../actor/actor-document.js';
import type { Addressing } from '../actor/addressing.js';
import { decodeErrorRecord } from '../actor/error-record.js';
import { encodeInboxEnvelope } from '../actor/inbox-codec.js';
import { decodeToolIntent } from '../actor/state-codec.js';
import type { InboxElement } from '../actor/inbox-element.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import type { DecodedResponse, ModelProvider } from '../model/model-request.js';
import { CURRENT_SNAPSHOT_VERSION, type KeySnapshot, type RecordedMessage } from '../snapshot/key-snapshot.js';
import { replaySnapshot, type ReplayReport, type ReplayStep } from '../snapshot/replay-snapshot.js';
import { decodeKeySnapshot, snapshotBlob } from '../snapshot/snapshot-codec.js';
import { HeaderName } from '../vocabulary/header-name.js';
import { ManualTimers } from './manual-timers.js';

/** What {@link checkAgainstSnapshot} runs with. */
export interface SnapshotCheckOptions {
  /** The agent versions under test; one must be named like the snapshot's agent. */
  readonly agents: Iterable<AgentDefinition>;
  /** The deployment's subjects (`topologyAddressing(createTopology(snapshot.source))` from `#routing`). */
  readonly addressing: Addressing;
  /** Answers model calls the snapshot does not hold (a scripted model); absent = such a call is irreproducible. */
  readonly fallback?: ModelProvider;
  /** The deployment provider's response decoder (e.g. `decodeRecordedResponse` of `#providers`); absent = the fallback's, else UTF-8 text. */
  readonly decode?: (body: Uint8Array) => DecodedResponse;
  /** Replay only the first `through` recorded elements (the end state is then not compared). */
  readonly through?: number;
  readonly onStep?: (step: ReplayStep) => void | Promise<void>;
}

/**
 * Replays a snapshot file (or a decoded snapshot) against `agents` and returns the report:
 * `reproduced` (the same decisions), `diverged` (every named difference, at its element) or
 * `irreproducible` (a model call the snapshot cannot answer).
 *
 * @example
 * ```ts
 * const report = await checkAgainstSnapshot(readFileSync('snapshots/refund-order-8.json'), { agents: [refundV2], addressing });
 * expect(report.outcome).toBe('reproduced');
 * ```
 */
export async function checkAgainstSnapshot(snapshot: Uint8Array | KeySnapshot, options: SnapshotCheckOptions): Promise<ReplayReport> {
  const decoded = snapshot instanceof Uint8Array ? decodeKeySnapshot(snapshot) : snapshot;
  const timers = new ManualTimers(0);
  return timers.settle(
    replaySnapshot(decoded, {
      agents: options.agents,
      addressing: options.addressing,
      timers,
      monotonicMs: timers.monotonicMs,
      ...(options.fallback ? { fallback: options.fallback } : {}),
      ...(options.decode ? { decode: options.decode } : {}),
      ...(options.onStep ? { onStep: options.onStep } : {}),
      ...(options.through !== undefined ? { through: options.through } : {}),
    }),
  );
}

/** What a test recorded of one key, to turn into a snapshot without a cluster. */
export interface RecordedKey {
  readonly agent: string;
  readonly key: Uint8Array;
  /** The elements the key was sent, in order (their `inboxSeq` is their stream sequence). */
  readonly elements: readonly InboxElement[];
  /** The committed state bytes (e.g. `ActorHarness.bytes`). */
  readonly state: Uint8Array | undefined;
  /** What the streams hold (e.g. `ActorHarness.stored`); entries of other keys are ignored by the replay. */
  readonly stored: readonly OutboxEntryDoc[];
  /** The addressing the recording ran with; with a `journal`, its journal messages are the snapshot's journal. */
  readonly addressing: Addressing;
  /** `lastAppliedSeq` of the committed state: elements above it are recorded as not applied. */
  readonly lastAppliedSeq: number;
}

/**
 * A snapshot of a key run through an in-memory runtime (`ActorHarness`), shaped like one
 * `nats-agents snapshot` exports, for specs of replay itself and of agents' compatibility.
 */
export function snapshotOfRecordedKey(recorded: RecordedKey): KeySnapshot {
  const outputSubject = recorded.addressing.output(recorded.agent, recorded.key);
  const journalSubject = recorded.addressing.journal?.(recorded.agent, recorded.key);
  const approvalSubject = recorded.addressing.approvalRequest(recorded.agent, recorded.key);
  let seq = 0;
  const message = (entry: OutboxEntryDoc): RecordedMessage => ({
    streamSeq: (seq += 1),
    subject: entry.subject,
    headers: [...entry.headers, { name: HeaderName.MsgId, value: entry.msgId }],
    data: snapshotBlob(entry.payload),
  });
  const isError = (e: OutboxEntryDoc): boolean => e.headers.some((h) => h.name === HeaderName.Reason);
  const hex = Buffer.from(recorded.key).toString('hex');
  const ofKey = (e: OutboxEntryDoc): boolean => Buffer.from(isError(e) ? decodeErrorRecord(e.payload).entityKey : decodeToolIntent(e.payload).entityKey).toString('hex') === hex;
  return {
    version: CURRENT_SNAPSHOT_VERSION,
    agent: recorded.agent,
    key: snapshotBlob(recorded.key),
    takenAtMs: 0,
    redacted: false,
    source: { prefix: 'agents', partitions: 1, inboxFirstSeq: 1 },
    state: recorded.state === undefined ? undefined : { revision: 1, document: snapshotBlob(recorded.state) },
    inbox: recorded.elements.map((element) => ({
      streamSeq: element.inboxSeq,
      subject: `agents.inbox.0.${recorded.agent}.${element.payload.kind}`,
      headers: [...element.headers, ...(element.direct === true ? [{ name: HeaderName.Direct, value: '1' }] : [])],
      data: snapshotBlob(encodeInboxEnvelope({ entityKey: element.entityKey, eventTimeMs: element.eventTimeMs, payload: element.payload })),
      applied: element.inboxSeq <= recorded.lastAppliedSeq,
    })),
    outputs: recorded.stored.filter((e) => e.subject === outputSubject).map(message),
    intents: recorded.stored.filter((e) => !isError(e) && e.subject !== outputSubject && e.subject !== journalSubject && (e.subject === approvalSubject || e.subject.startsWith(recorded.addressing.intent(recorded.agent, ''))) && ofKey(e)).map(message),
    errors: recorded.stored.filter((e) => isError(e) && ofKey(e)).map(message),
    effects: [],
    journal: recorded.stored.filter((e) => journalSubject !== undefined && e.subject === journalSubject).map(message),
  };
}
