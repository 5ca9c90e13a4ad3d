/**
 * @packageDocumentation
 * The test kit of nats-agents: runs an agent in-process on the real actor runtime with in-memory
 * ports (state store, outbox, manual clock) and a scripted model, so a spec drives events, tool
 * results, approvals and deadlines without a cluster. The project's own specs use the same
 * doubles: one manual clock, one state store, one publisher.
 *
 * @module testing
 */
export { testAgent, AgentTest } from './agent-test-kit.js';
export type { AgentTestOptions, PublishedIntent, StepResult, ToolAnswer } from './agent-test-kit.js';
export { scriptedModel } from './scripted-model.js';
export type { ModelReply, ModelScriptInput } from './scripted-model.js';
export { checkElementDeterminism } from './determinism-check.js';
export type { DeterminismReport, DeterminismInput } from './determinism-check.js';

// The doubles under the kit, for specs of the runtime itself and for finer control.
export {
  ActorHarness,
  ManualTimers,
  flushMicrotasks,
  InMemoryStateStore,
  InjectedStoreFault,
  RecordingOutboxPublisher,
  InjectedPublishFault,
  ScriptedModelProvider,
  RecordingObserver,
  deferred,
  T0,
  utf8Bytes,
  eventElement,
  resultElement,
  approvalElement,
  timerElement,
  timerFiring,
  testAddressing,
  journalingTestAddressing,
} from '#core';
export type { HarnessOptions, CommitFault, StoreWrite, ModelScript, Deferred, ElementOptions, ResultOptions, ApprovalOptions, TimerOptions } from '#core';

// Offline replay against snapshots taken with `nats-agents snapshot` (the same replay as `nats-agents replay`).
export { checkAgainstSnapshot, snapshotOfRecordedKey } from '#core';
export type { SnapshotCheckOptions, RecordedKey, ReplayReport, ReplayStep, ReplayDivergence } from '#core';
