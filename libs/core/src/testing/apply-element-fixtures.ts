/**
 * Shared wiring for specs of the pure step {@link applyElement}: default dependencies (scripted
 * provider, manual timers, test addressing, epoch 1), unwrapping a commit, and reading a
 * committed outbox back as outputs, intents and error records. No clock, no randomness.
 */
import type { ActorDocument, OutboxEntryDoc, TimerDoc, ToolIntentDoc } from '../actor/actor-document.js';
import { TimerKind } from '../actor/actor-document.js';
import type { ActivationReport, ApplyDeps, ApplyResult } from '../actor/apply-result.js';
import { decodeErrorRecord, type ErrorRecordFields } from '../actor/error-record.js';
import { decodeToolIntent } from '../actor/state-codec.js';
import { AttemptMemo } from '../activation/attempt-memo.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { ManualTimers } from './manual-timers.js';
import { ScriptedModelProvider } from './scripted-model-provider.js';
import { testAddressing } from './test-addressing.js';

const text = new TextDecoder();

/** Dependencies of one `applyElement` call; anything can be overridden. */
export function applyDeps(agent: AgentDefinition, overrides: Partial<ApplyDeps> = {}): ApplyDeps {
  const timers = overrides.timers instanceof ManualTimers ? overrides.timers : new ManualTimers();
  return {
    agent,
    provider: ScriptedModelProvider.replying('pong'),
    addressing: testAddressing,
    timers,
    monotonicMs: timers.monotonicMs,
    ownerEpoch: 1,
    memo: new AttemptMemo(),
    activationTimeoutMs: 30_000,
    ...overrides,
  };
}

/** The next document of a commit; throws for any other decision. */
export function committedDoc(result: ApplyResult): ActorDocument {
  if (result.kind !== 'commit') throw new Error(`expected a commit, got ${result.kind}`);
  return result.next;
}

/** The report of a commit; throws for any other decision. */
export function commitReport(result: ApplyResult): ActivationReport {
  if (result.kind !== 'commit') throw new Error(`expected a commit, got ${result.kind}`);
  return result.report;
}

const isIntentEntry = (entry: OutboxEntryDoc): boolean => entry.subject.startsWith('agents.intents.') || entry.subject.startsWith('agents.approval-requests.');

/** Texts of the outputs a document's outbox owes, in order. */
export function outboxOutputs(doc: ActorDocument): string[] {
  return doc.outbox.filter((entry) => entry.subject.startsWith('agents.output.')).map((entry) => text.decode(entry.payload));
}

/** The intents (tool intents and approval requests) a document's outbox owes, decoded, in order. */
export function outboxIntents(doc: ActorDocument): ToolIntentDoc[] {
  return doc.outbox.filter(isIntentEntry).map((entry) => decodeToolIntent(Uint8Array.from(entry.payload)));
}

/** The error records a document's outbox owes, decoded, in order. */
export function outboxErrors(doc: ActorDocument): ErrorRecordFields[] {
  return doc.outbox.filter((entry) => entry.subject.startsWith('agents.errors.')).map((entry) => decodeErrorRecord(Uint8Array.from(entry.payload)));
}

/** The document's suspension-deadline timer; throws when it has none (or several). */
export function deadlineTimer(doc: ActorDocument): TimerDoc {
  const deadlines = doc.timers.filter((t) => t.kind === TimerKind.Deadline);
  const [only] = deadlines;
  if (only === undefined || deadlines.length !== 1) throw new Error(`expected one deadline timer, found ${deadlines.length}`);
  return only;
}
