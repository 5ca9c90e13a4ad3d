/**
 * Offline replay of a key snapshot (docs/replay.md): re-applies the key's recorded inbox elements,
 * in order, to a fresh document with the agent modules given, answering model calls only from the
 * snapshot's replay cache (the live suspension's) and replay journal (completed activations',
 * decision 0073), and compares what each element produces with what was recorded:
 *
 * 1. every output, tool intent, approval request and error record a commit would publish, matched
 *    by message id against the recorded streams (outputs and error records byte for byte, intents
 *    field by field except the signature, which needs the activator's key);
 * 2. after the last element, the final document against the committed one: working memory,
 *    continuation, pending intents, `seq`, `lastAppliedSeq`.
 *
 * It follows the activator's per-element protocol (ARCHITECTURE §5): duplicates and stale timers do
 * nothing, and events deferred behind a suspension run when it ends. No NATS, no wall clock: time is
 * each element's event time, as in the cluster. Read-only tools run again for real; side effects
 * cannot happen (intents are only compared). Long-term memory is not available offline
 * (`ctx.memory.longterm` throws `LongTermNotConfigured`), and direct events are not re-screened.
 *
 * Replaying the same snapshot with the same modules always yields the same report.
 */
import { emptyActorDocument, IntentKind, type ActorDocument, type OutboxEntryDoc, type ToolIntentDoc } from '../actor/actor-document.js';
import type { Addressing } from '../actor/addressing.js';
import { applyElement } from '../actor/apply-element.js';
import type { ActivationStatus, ApplyDeps, ApplyResult } from '../actor/apply-result.js';
import { drainDeferred, needsDrain } from '../actor/deferral.js';
import { decodeInboxEnvelope } from '../actor/inbox-codec.js';
import type { InboxElement, InboxPayload } from '../actor/inbox-element.js';
import { decodeActorDocument, decodeToolIntent } from '../actor/state-codec.js';
import { AttemptMemo } from '../activation/attempt-memo.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { TerminalError } from '../errors/runtime-error.js';
import { errorMessageId, outputMessageId } from '../ids/message-id.js';
import type { DecodedResponse, ModelProvider } from '../model/model-request.js';
import type { Timers } from '../time/clock.js';
import { HeaderName } from '../vocabulary/header-name.js';
import { decodeJournalPayload } from '../replay/replay-journal.js';
import { CacheOnlyProvider, type CacheMissRecord, type JournaledActivation } from './cache-only-provider.js';
import type { KeySnapshot, RecordedMessage } from './key-snapshot.js';
import { DivergenceProblem, DivergenceSubject, type ReplayDivergence } from './replay-divergence.js';

/** The snapshot cannot be replayed as asked (redacted, or no module defines its agent). */
export class ReplayNotPossible extends TerminalError {
  override readonly name = 'ReplayNotPossible';
}

/** What a replay runs with. */
export interface ReplayOptions {
  /** The agent modules' definitions; one must be named like the snapshot's agent. */
  readonly agents: Iterable<AgentDefinition>;
  /** The deployment's subjects (build it from `snapshot.source`); outbox subjects are compared too. */
  readonly addressing: Addressing;
  /** Activation timeouts only (the replay reads no clock otherwise). */
  readonly timers: Timers;
  readonly monotonicMs: () => number;
  /** Default activation timeout (the agent's own `timeoutMs` wins); default 30 s. */
  readonly activationTimeoutMs?: number;
  /** The deployment provider's response decoder (absent: a response is UTF-8 text). */
  readonly decode?: (body: Uint8Array) => DecodedResponse;
  /**
   * Answers model calls the snapshot does not record (e.g. a scripted model in a user's CI).
   * Absent: such a call makes the replay irreproducible. A snapshot records the live suspension's
   * responses (its state's cache) and those of the completed activations the deployment journaled.
   */
  readonly fallback?: ModelProvider;
  /** Replay only the first `through` recorded elements (end-state comparison is skipped unless all ran). */
  readonly through?: number;
  /** Called after each element, with the state it left (for stepping and printing). */
  readonly onStep?: (step: ReplayStep) => void | Promise<void>;
}

/** What one recorded element did in the replay. */
export interface ReplayStep {
  /** 1-based position among the replayed elements. */
  readonly element: number;
  readonly inboxSeq: number;
  readonly kind: InboxPayload['kind'];
  readonly eventTimeMs: number;
  /** The first decision for the element; `commit` also reports the activation status. */
  readonly decision: ApplyResult['kind'];
  readonly status?: ActivationStatus;
  /** Commits the element made (more than one when it ended a suspension that deferred events). */
  readonly commits: number;
  /** What those commits would publish. */
  readonly published: readonly OutboxEntryDoc[];
  /** The document after the element. */
  readonly state: ActorDocument | undefined;
  /** Divergences found at this element so far (end-state ones are added to the report only). */
  readonly divergences: readonly ReplayDivergence[];
}

/** How a replay ended. */
export type ReplayReport =
  /** Every replayed element produced exactly what was recorded. */
  | { readonly outcome: 'reproduced'; readonly steps: readonly ReplayStep[]; readonly notApplied: number; readonly historyMayBeIncomplete: boolean }
  /** At least one difference; `divergences` lists every one, in element order. */
  | {
      readonly outcome: 'diverged';
      readonly steps: readonly ReplayStep[];
      readonly divergences: readonly ReplayDivergence[];
      readonly notApplied: number;
      readonly historyMayBeIncomplete: boolean;
    }
  /**
   * The recording cannot decide: a model call the snapshot's cache cannot answer, at `element`.
   * Not a divergence: the run would have needed a provider. A miss `why: 'completed'` is an
   * activation that completed before the snapshot and was not journaled (journal off, aged out, or
   * a version 1 snapshot; decision 0073); a `fallback` model answers it, or `through: element - 1`
   * checks what came before.
   */
  | { readonly outcome: 'irreproducible'; readonly steps: readonly ReplayStep[]; readonly element: number; readonly inboxSeq: number; readonly reason: string; readonly misses: readonly CacheMissRecord[] };

const utf8 = new TextDecoder();

/** A payload for a report line: its UTF-8 text when it is printable, else its size. */
function printable(bytes: Uint8Array): string {
  const text = utf8.decode(bytes);
  return /^[\P{Cc}\n\t]*$/u.test(text) && !text.includes('\uFFFD') ? text : `<${bytes.length} bytes>`;
}

const header = (m: { readonly headers: readonly { name: string; value: string }[] }, name: string): string | undefined => m.headers.find((h) => h.name === name)?.value;
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

/** The fields of an intent a replay must reproduce (the signature needs the activator's key). */
function intentFields(intent: ToolIntentDoc): Record<string, string> {
  return {
    intentId: intent.intentId,
    agent: intent.agent,
    entityKey: Buffer.from(intent.entityKey).toString('hex'),
    seq: String(intent.seq),
    stepIndex: String(intent.stepIndex),
    toolName: intent.toolName,
    argsJson: intent.argsJson,
    createdAtMs: String(intent.createdAtMs),
    expiresAtMs: String(intent.expiresAtMs),
    attempt: String(intent.attempt),
    kind: String(intent.kind),
    traceId: Buffer.from(intent.traceId).toString('hex'),
  };
}

type Kind = 'output' | 'intent' | 'approval-request' | 'error-record';

/**
 * Replays `snapshot` (see the file comment).
 *
 * @throws {ReplayNotPossible} for a redacted snapshot or when no module defines the snapshot's agent
 * @example
 * ```ts
 * const report = await replaySnapshot(decodeKeySnapshot(bytes), { agents: [refund], addressing, timers, monotonicMs });
 * if (report.outcome !== 'reproduced') process.exitCode = 3;
 * ```
 */
export async function replaySnapshot(snapshot: KeySnapshot, options: ReplayOptions): Promise<ReplayReport> {
  if (snapshot.redacted) throw new ReplayNotPossible('a redacted snapshot cannot be replayed: it holds no key and no payloads');
  const agent = [...options.agents].find((a) => a.name === snapshot.agent);
  if (agent === undefined) throw new ReplayNotPossible(`no agent module defines agent '${snapshot.agent}'`);
  const key = snapshot.key.data as Uint8Array;
  // A replay journals nothing: the recorded journal is its input, not something it re-publishes.
  const given = options.addressing;
  const addressing: Addressing = { output: given.output, error: given.error, intent: given.intent, approvalRequest: given.approvalRequest, inboxStream: given.inboxStream };
  const committed = snapshot.state === undefined ? undefined : decodeActorDocument(snapshot.state.document.data as Uint8Array);
  const provider = new CacheOnlyProvider(
    committed?.llmCache ?? { entries: [], totalResponseBytes: 0 },
    key,
    committed?.seq ?? 0,
    options.decode ?? options.fallback?.decode?.bind(options.fallback),
    committed?.continuation?.seq,
    journaled(snapshot),
  );
  provider.fallback = options.fallback;

  // What was recorded, by message id.
  const recorded = new Map<string, { readonly kind: Kind; readonly message: RecordedMessage }>();
  const remember = (kind: (m: RecordedMessage) => Kind, list: readonly RecordedMessage[]): void => {
    for (const message of list) {
      const id = header(message, HeaderName.MsgId);
      if (id !== undefined) recorded.set(id, { kind: kind(message), message });
    }
  };
  const approvalSubject = addressing.approvalRequest(snapshot.agent, key);
  remember(() => 'output', snapshot.outputs);
  remember((m) => (m.subject === approvalSubject ? 'approval-request' : 'intent'), snapshot.intents);
  remember(() => 'error-record', snapshot.errors);
  const claimed = new Set<string>();

  const applied = snapshot.inbox.filter((m) => m.applied);
  const limit = options.through === undefined ? applied.length : Math.min(options.through, applied.length);
  const steps: ReplayStep[] = [];
  const divergences: ReplayDivergence[] = [];
  let doc: ActorDocument | undefined;

  for (let index = 0; index < limit; index += 1) {
    const message = applied[index]!;
    const position = index + 1;
    let envelope;
    try {
      envelope = decodeInboxEnvelope(message.data.data as Uint8Array);
    } catch {
      continue; // the activator terminates an unreadable inbox message without applying it
    }
    const element: InboxElement = {
      inboxSeq: message.streamSeq,
      entityKey: envelope.entityKey,
      eventTimeMs: envelope.eventTimeMs,
      payload: envelope.payload,
      headers: message.headers.filter((h) => h.name !== HeaderName.MsgId),
      ...(header(message, HeaderName.Direct) !== undefined ? { direct: true } : {}),
    };
    const deps: ApplyDeps = {
      agent,
      provider,
      addressing,
      timers: options.timers,
      monotonicMs: options.monotonicMs,
      ownerEpoch: Math.max(committed?.ownerEpoch ?? 0, doc?.ownerEpoch ?? 0),
      memo: new AttemptMemo(),
      activationTimeoutMs: options.activationTimeoutMs ?? 30_000,
    };
    const current = doc ?? emptyActorDocument(agent.name, key);
    provider.seqHint = element.payload.kind === 'event' ? current.seq : (current.continuation?.seq ?? current.seq);
    const missesBefore = provider.misses.length;
    const first = await applyElement(doc, element, deps);
    let result = first;
    const published: OutboxEntryDoc[] = [];
    const commitSeqs: number[] = [];
    const errorSeqs: number[] = [element.inboxSeq];
    /** (activation seq, event time) of each commit: what a recorded intent of it carries. */
    const activations: string[] = [];
    let eventTimeMs = element.eventTimeMs;
    let commits = 0;
    while (result.kind === 'commit') {
      commitSeqs.push((doc ?? current).seq);
      activations.push(`${result.report.seq}@${eventTimeMs}`);
      doc = result.next;
      commits += 1;
      published.push(...result.next.outbox);
      if (!needsDrain(doc)) break;
      errorSeqs.push(doc.deferred[0]!.inboxSeq);
      eventTimeMs = doc.deferred[0]!.eventTimeMs;
      provider.seqHint = doc.seq;
      result = await drainDeferred(doc, { ...deps, memo: new AttemptMemo() });
    }
    if (provider.misses.length > missesBefore) {
      const miss = provider.misses[missesBefore]!;
      return {
        outcome: 'irreproducible',
        steps,
        element: position,
        inboxSeq: element.inboxSeq,
        reason:
          miss.why === 'completed'
            ? `element ${position} (inbox seq ${element.inboxSeq}) asked model ${miss.model} in activation seq ${miss.seqHint}, which completed before the snapshot was taken, and the snapshot holds no replay journal of it`
            : `element ${position} (inbox seq ${element.inboxSeq}) asked model ${miss.model} for a response the snapshot does not hold (${miss.why})`,
        misses: provider.misses.slice(missesBefore),
      };
    }

    // 1. What the element's commits publish, against the recording.
    const found: ReplayDivergence[] = [];
    const diverge = (d: Omit<ReplayDivergence, 'element' | 'inboxSeq'>): void => void found.push({ element: position, inboxSeq: element.inboxSeq, ...d });
    for (const entry of published) {
      const kind: Kind =
        header(entry, HeaderName.Reason) !== undefined
          ? 'error-record'
          : entry.subject === addressing.output(agent.name, key)
            ? 'output'
            : entry.subject === approvalSubject
              ? 'approval-request'
              : 'intent';
      const match = recorded.get(entry.msgId);
      if (match === undefined) {
        diverge({ what: kind, id: entry.msgId, problem: DivergenceProblem.Unexpected, replayed: describe(kind, entry.payload) });
        continue;
      }
      claimed.add(entry.msgId);
      const stored = match.message.data.data as Uint8Array;
      if (kind === 'intent' || kind === 'approval-request') {
        const a = intentFields(decodeToolIntent(stored));
        const b = intentFields(decodeToolIntent(entry.payload));
        const fields = Object.keys(a).filter((f) => a[f] !== b[f]);
        if (fields.length > 0 || match.message.subject !== entry.subject) {
          diverge({
            what: kind,
            id: entry.msgId,
            problem: DivergenceProblem.Different,
            recorded: fields.map((f) => `${f}=${a[f]}`).join(' ') || match.message.subject,
            replayed: fields.map((f) => `${f}=${b[f]}`).join(' ') || entry.subject,
          });
        }
      } else if (!sameBytes(stored, entry.payload) || match.message.subject !== entry.subject) {
        diverge({ what: kind, id: entry.msgId, problem: DivergenceProblem.Different, recorded: describe(kind, stored), replayed: describe(kind, entry.payload) });
      }
    }
    // Recorded messages this element should have produced but did not.
    const mine = (id: string, m: RecordedMessage, kind: Kind): boolean => {
      if (kind === 'error-record') return errorSeqs.some((s) => errorMessageId(agent.name, key, s) === id);
      if (kind === 'output') return commitSeqs.some((c) => Array.from({ length: 256 }, (_, i) => outputMessageId(agent.name, key, c, i)).includes(id));
      // An intent carries its activation seq and its element's event time.
      return activations.includes(`${header(m, HeaderName.Seq) ?? ''}@${header(m, HeaderName.EventTime) ?? ''}`);
    };
    for (const [id, { kind, message: m }] of recorded) {
      if (claimed.has(id) || !mine(id, m, kind)) continue;
      claimed.add(id);
      diverge({ what: kind, id, problem: DivergenceProblem.Missing, recorded: describe(kind, m.data.data as Uint8Array) });
    }
    divergences.push(...found);
    const step: ReplayStep = {
      element: position,
      inboxSeq: element.inboxSeq,
      kind: element.payload.kind,
      eventTimeMs: element.eventTimeMs,
      decision: first.kind,
      ...(first.kind === 'commit' ? { status: first.report.status } : {}),
      commits,
      published,
      state: doc,
      divergences: found,
    };
    steps.push(step);
    await options.onStep?.(step);
  }

  // 2. The final document against the committed one (only when every recorded element ran).
  const last = steps.at(-1);
  if (limit === applied.length && last !== undefined && committed !== undefined) {
    const at = { element: last.element, inboxSeq: last.inboxSeq };
    // Recorded messages no replayed element claimed (e.g. the replay stopped producing a whole activation).
    for (const [id, { kind, message: m }] of recorded) {
      if (!claimed.has(id)) divergences.push({ ...at, what: kind, id, problem: DivergenceProblem.Missing, recorded: describe(kind, m.data.data as Uint8Array) });
    }
    divergences.push(...compareState(committed, doc ?? emptyActorDocument(agent.name, key)).map((d) => ({ ...at, ...d })));
  }
  const notApplied = snapshot.inbox.length - applied.length;
  const historyMayBeIncomplete = snapshot.source.inboxFirstSeq > 1;
  return divergences.length === 0
    ? { outcome: 'reproduced', steps, notApplied, historyMayBeIncomplete }
    : { outcome: 'diverged', steps, divergences, notApplied, historyMayBeIncomplete };
}

/**
 * The activations the snapshot's journal recorded. A message whose seq header or payload does not
 * read is skipped: its calls then miss as `completed`, never answered with a guess.
 */
function journaled(snapshot: KeySnapshot): JournaledActivation[] {
  const out: JournaledActivation[] = [];
  for (const message of snapshot.journal) {
    const seq = Number(header(message, HeaderName.Seq));
    if (!Number.isSafeInteger(seq) || seq < 0 || message.data.data === undefined) continue;
    try {
      out.push({ seq, cache: decodeJournalPayload(message.data.data) });
    } catch {
      continue;
    }
  }
  return out;
}

function describe(kind: Kind, payload: Uint8Array): string {
  if (kind === 'intent' || kind === 'approval-request') {
    try {
      const intent = decodeToolIntent(payload);
      return `${intent.kind === IntentKind.Approval ? 'approval' : 'tool'} ${intent.toolName} ${intent.argsJson}`;
    } catch {
      return `<${payload.length} bytes>`;
    }
  }
  return printable(payload);
}

type StateDivergence = Omit<ReplayDivergence, 'element' | 'inboxSeq'>;

/** Differences of the final state that matter to the agent's next decision. */
export function compareState(recorded: ActorDocument, replayed: ActorDocument): StateDivergence[] {
  const out: StateDivergence[] = [];
  const field = (id: string, a: string, b: string, what: ReplayDivergence['what'] = DivergenceSubject.State): void => {
    if (a !== b) out.push({ what, id, problem: DivergenceProblem.Different, recorded: a, replayed: b });
  };
  field('seq', String(recorded.seq), String(replayed.seq));
  field('lastAppliedSeq', String(recorded.lastAppliedSeq), String(replayed.lastAppliedSeq));
  field('pending', recorded.pending.map((i) => i.intentId).join(','), replayed.pending.map((i) => i.intentId).join(','));
  field('deferred', String(recorded.deferred.length), String(replayed.deferred.length));

  const memory = new Map(replayed.memory.entries.map((e) => [e.key, e]));
  for (const entry of recorded.memory.entries) {
    const other = memory.get(entry.key);
    memory.delete(entry.key);
    if (other === undefined) out.push({ what: DivergenceSubject.Memory, id: entry.key, problem: DivergenceProblem.Missing, recorded: printable(entry.value.subarray(1)) });
    else if (!sameBytes(entry.value, other.value)) {
      out.push({ what: DivergenceSubject.Memory, id: entry.key, problem: DivergenceProblem.Different, recorded: printable(entry.value.subarray(1)), replayed: printable(other.value.subarray(1)) });
    }
  }
  for (const entry of memory.values()) out.push({ what: DivergenceSubject.Memory, id: entry.key, problem: DivergenceProblem.Unexpected, replayed: printable(entry.value.subarray(1)) });

  const a = recorded.continuation;
  const b = replayed.continuation;
  if (a === undefined && b !== undefined) out.push({ what: DivergenceSubject.Continuation, id: 'continuation', problem: DivergenceProblem.Unexpected, replayed: `suspended at seq ${b.seq}` });
  else if (a !== undefined && b === undefined) out.push({ what: DivergenceSubject.Continuation, id: 'continuation', problem: DivergenceProblem.Missing, recorded: `suspended at seq ${a.seq}` });
  else if (a !== undefined && b !== undefined) {
    field('seq', String(a.seq), String(b.seq), DivergenceSubject.Continuation);
    field('stepIndex', String(a.stepIndex), String(b.stepIndex), DivergenceSubject.Continuation);
    field('pendingIntentIds', a.pendingIntentIds.join(','), b.pendingIntentIds.join(','), DivergenceSubject.Continuation);
    field('snapshot', printable(a.snapshot), printable(b.snapshot), DivergenceSubject.Continuation);
    field('deadlineMs', String(a.deadlineMs), String(b.deadlineMs), DivergenceSubject.Continuation);
    field('escalations', String(a.escalations), String(b.escalations), DivergenceSubject.Continuation);
  }
  return out;
}
