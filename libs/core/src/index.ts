/**
 * @packageDocumentation
 * The pure runtime core: the activation loop, staging context, working memory, replay cache,
 * derived ids, error vocabulary and state codec. No Nest, no NATS, no environment, no wall
 * clock, no randomness: everything with a side effect is a port the services inject.
 */

// vocabularies
export { ErrorReason, isErrorReason } from './vocabulary/error-reason.js';
export { HeaderName } from './vocabulary/header-name.js';

// derived ids (invariant 2)
export { entityKeyHex } from './ids/entity-key-hex.js';
export { IdNamespace } from './ids/namespaces.js';
export { intentId } from './ids/intent-id.js';
export { traceId, spanId } from './ids/trace-id.js';
export {
  outputMessageId,
  journalMessageId,
  errorMessageId,
  ingressErrorMessageId,
  redriveMessageId,
  ingestForwardMessageId,
  timerMessageId,
} from './ids/message-id.js';

// json, time, errors
export { canonicalJson, CanonicalJsonError } from './json/canonical-json.js';
export type { JsonValue } from './json/canonical-json.js';
export type { Clock, Timers, Cancel } from './time/clock.js';
export { TerminalError, RetryableError, ensureError } from './errors/runtime-error.js';
export type { RuntimeErrorOptions } from './errors/runtime-error.js';

// model port
export type {
  ModelRequest,
  ModelResponse,
  ModelProvider,
  ProviderCallOptions,
  DecodedResponse,
  TokenUsage,
  ToolCall,
  StopReason,
} from './model/model-request.js';
export { BudgetExceeded, checkTokenBudget, tallyTokens } from './model/token-budget.js';
export { AgentLedgerUnavailable, agentWindowOf, InMemoryAgentTokenLedger } from './model/agent-token-ledger.js';
export { ActivationRetry } from './activation/activation-retry.js';
export type { TokenBudget, BudgetScope, BudgetInputs } from './model/token-budget.js';
export type { AgentTokenLedger, AgentWindow } from './model/agent-token-ledger.js';
export {
  ProviderError,
  RateLimitError,
  ServerError,
  ProviderTimeout,
  ProviderRequestError,
} from './model/provider-errors.js';

// agent contract
export { AGENT_NAME_PATTERN, isAgentDefinition } from './agent/agent-definition.js';
export type { AgentDefinition, AgentHandler, AgentIsolation, EventValidator } from './agent/agent-definition.js';
export { parseEvent, eventProblem, describeIssues } from './agent/event-schema.js';
export type { ParsedEvent } from './agent/event-schema.js';
export { isOutcome } from './agent/outcome.js';
export type { Outcome, Complete, Suspend, SuspendOptions, OutputValue } from './agent/outcome.js';
export type { ActivationContext } from './agent/activation-context.js';
export type { ToolResultView, ApprovalView, ToolResultStatusName, TypedToolResult } from './agent/resume-views.js';
export { resolveSuspensionPolicy, DEFAULT_APPROVAL_CHANNEL } from './agent/suspension-policy.js';
export type { SuspensionPolicy, ResolvedSuspensionPolicy } from './agent/suspension-policy.js';
export type { WorkingMemoryApi, AppendOptions } from './agent/working-memory-api.js';

// actor document and codec (invariant 7)
export {
  CURRENT_STATE_SCHEMA_VERSION,
  IntentKind,
  TimerKind,
  emptyActorDocument,
} from './actor/actor-document.js';
export type {
  ActorDocument,
  MemoryBlobDoc,
  MemoryEntryDoc,
  CacheBlobDoc,
  CacheEntryDoc,
  ContinuationDoc,
  ToolIntentDoc,
  OutboxEntryDoc,
  HeaderDoc,
  TimerDoc,
  DeferredEventDoc,
} from './actor/actor-document.js';
export {
  encodeActorDocument,
  decodeActorDocument,
  encodeToolIntent,
  decodeToolIntent,
  StateSchemaFromFuture,
  StateDocumentCorrupt,
} from './actor/state-codec.js';
export { migrateToCurrent, MissingMigrationError, registeredMigrationVersions } from './actor/state-migrations.js';

// the per-key actor runtime (ARCHITECTURE §5) and its ports
export { applyElement } from './actor/apply-element.js';
export type { ApplyDeps, ApplyResult, ActivationReport, ActivationStatus } from './actor/apply-result.js';
export { ActorRuntime, AgentNotHosted } from './actor/actor-runtime.js';
export type { ActorRuntimeDeps, DocumentCheck, ElementScope, ProcessOutcome } from './actor/actor-runtime.js';
export type { ElementRefusal, DirectElementScreen } from './actor/element-refusal.js';
export type { ActorRuntimeObserver } from './actor/actor-runtime-observer.js';
export type { ActivationTally, ModelCallRecord } from './activation/activation-tally.js';
export { CommitConflict } from './actor/state-store.js';
export type { StateStore, StoredActor } from './actor/state-store.js';
export type { OutboxPublisher } from './actor/outbox-publisher.js';
export { sameTimers, indexCovers } from './actor/timer-index.js';
export type { TimerIndex, TimerOwner } from './actor/timer-index.js';
export { admit, OrphanReason } from './actor/admission.js';
export type { Admission, Answer } from './actor/admission.js';
export { needsDrain, drainDeferred } from './actor/deferral.js';
export type { IntentSigner } from './actor/outbox-entries.js';
export type { Addressing } from './actor/addressing.js';
export { KeyMailbox } from './actor/key-mailbox.js';
export { SlotMap } from './collections/slot-map.js';
export { backoffDelay } from './actor/backoff.js';
export type { BackoffPolicy } from './actor/backoff.js';
export { encodeErrorRecord, decodeErrorRecord, errorRecordSource } from './actor/error-record.js';
export type { ErrorRecordFields } from './actor/error-record.js';
export { ToolResultStatus, inboxElement, withElementHeaders } from './actor/inbox-element.js';
export type { InboxElement, InboxPayload, ToolResultDoc, ApprovalDoc, TimerFiredDoc } from './actor/inbox-element.js';
export {
  encodeInboxEnvelope,
  decodeInboxEnvelope,
  encodeToolResult,
  decodeToolResult,
  encodeApproval,
  decodeApproval,
  InboxDecodeError,
} from './actor/inbox-codec.js';
export type { InboxEnvelopeFields } from './actor/inbox-codec.js';
export { sleep } from './time/sleep.js';

// activation
export { EventDecodeError } from './activation/event-decode-error.js';
export { ActivationTimeout } from './activation/activation-timeout.js';
export { AttemptAbort } from './activation/attempt-abort.js';
export { serveContextCall } from './activation/context-call.js';
export type { ContextCall, ContextChannel, ContextReply } from './activation/context-call.js';
export { RemoteContext, activationSnapshot } from './activation/remote-context.js';
export type { ActivationSnapshot, ToolResultData } from './activation/remote-context.js';
export { errorToWire, errorFromWire } from './activation/error-wire.js';
export type { ErrorWire } from './activation/error-wire.js';
export { outputBytes } from './activation/output-value.js';

// working memory and replay cache
export { WorkingMemory } from './memory/working-memory.js';
export type { WorkingMemoryOptions } from './memory/working-memory.js';
export { MemoryOverflow } from './memory/memory-overflow.js';
export { MemoryKindError } from './memory/memory-kind-error.js';
export { MEMORY_HARD_CAP_BYTES, MEMORY_SOFT_CAP_BYTES, DEFAULT_RING_MAX_ITEMS } from './memory/memory-limits.js';
export type { Compactor, CompactableMemory } from './memory/compactor.js';
export { DropOldestCompactor, DEFAULT_COMPACTION_TARGET_BYTES, DEFAULT_PROTECTED_PREFIXES } from './memory/drop-oldest-compactor.js';
export type { DropOldestOptions } from './memory/drop-oldest-compactor.js';
export { summarizeIfDue, SummaryDidNotShrink, DEFAULT_SUMMARY_TRIGGER_BYTES } from './memory/summarize-compaction.js';
export type { SummarizeOptions, SummarizeInput } from './memory/summarize-compaction.js';
export type { MemoryPolicy } from './agent/memory-policy.js';
export { EXPIRED_MEMORY_KEY } from './agent/memory-policy.js';
export { encodeMemoryBlob, decodeMemoryBlob } from './actor/state-codec.js';
export { ReplayCache } from './replay/replay-cache.js';
export { replayCacheKey } from './replay/replay-cache-key.js';
export { REPLAY_CACHE_MAX_ENTRIES, REPLAY_CACHE_TTL_MS, REPLAY_CACHE_BLOB_CAP_BYTES } from './replay/replay-cache-limits.js';

// tools (inline read-only tools and effector-run side-effecting tools)
export { TOOL_NAME_PATTERN, isToolDefinition } from './tools/tool-definition.js';
export type { ToolDefinition, AnyToolDefinition, ArgumentSchema, StandardSchema, StandardResult, TypedTool, IntentInfo, ToolCallContext, ToolReturn } from './tools/tool-definition.js';
export { ToolError, ToolNotFoundError, ToolArgumentError, SideEffectToolError } from './tools/tool-errors.js';
export { validateArguments } from './tools/validate-arguments.js';

// intent signing and expiry (effector security, fail-closed layer 2)
export { HMAC_SHA256, signingInput, signIntent, verifyIntent } from './signing/intent-signing.js';
export type { SigningKey, VerificationResult } from './signing/intent-signing.js';
export { clusterKeys, NO_CLUSTER_KEYS } from './signing/cluster-keys.js';
export type { ClusterKeys } from './signing/cluster-keys.js';
export { sealElement, verifySeal, sealedPayloadBytes, signedIntentMessageId, keyedMessageId } from './signing/element-seal.js';
export type { Seal, SealInput, SealedKind } from './signing/element-seal.js';
export { intentExpired } from './signing/intent-expiry.js';

// long-term memory tier
export { encodeLongTermRecord, decodeLongTermRecord, isExpired, CURRENT_RECORD_SCHEMA_VERSION } from './longterm/long-term-record.js';
export type { LongTermRecord } from './longterm/long-term-record.js';
export { MemoryType, DEFAULT_RETENTION_MS, DEFAULT_MEMORY_TYPE, MEMORY_TYPE_PATTERN } from './longterm/memory-type.js';
export { LongTermUnavailable } from './longterm/long-term-store.js';
export type { LongTermStore, LongTermScope, SearchOptions } from './longterm/long-term-store.js';

// key snapshots and offline replay (docs/replay.md)
export { KEY_SNAPSHOT_FORMAT, CURRENT_SNAPSHOT_VERSION } from './snapshot/key-snapshot.js';
export type { KeySnapshot, SnapshotBlob, RecordedMessage, RecordedInboxMessage, RecordedEffect, SnapshotSource, SnapshotState } from './snapshot/key-snapshot.js';
export { encodeKeySnapshot, decodeKeySnapshot, redactKeySnapshot, snapshotBlob } from './snapshot/snapshot-codec.js';
export { SnapshotFormatError, SnapshotFromFuture } from './snapshot/snapshot-errors.js';
export { replaySnapshot, compareState, ReplayNotPossible } from './snapshot/replay-snapshot.js';
export type { ReplayOptions, ReplayStep, ReplayReport } from './snapshot/replay-snapshot.js';
export { DivergenceSubject, DivergenceProblem } from './snapshot/replay-divergence.js';
export type { ReplayDivergence } from './snapshot/replay-divergence.js';
export { CacheOnlyProvider, ReplayCacheMiss } from './snapshot/cache-only-provider.js';
export type { CacheMissRecord, JournaledActivation } from './snapshot/cache-only-provider.js';
export { encodeJournalPayload, decodeJournalPayload, journalEntry } from './replay/replay-journal.js';

// test doubles and the offline replay check: pure, side-effect free; the test kit (#testing,
// `@nats-agents/testing`) re-exports them, and the project's own specs use the same ones.
export { ManualTimers, flushMicrotasks } from './testing/manual-timers.js';
export { InMemoryStateStore, InjectedStoreFault } from './testing/in-memory-state-store.js';
export type { CommitFault, StoreWrite } from './testing/in-memory-state-store.js';
export { RecordingOutboxPublisher, InjectedPublishFault } from './testing/recording-outbox-publisher.js';
export { ScriptedModelProvider, deferred } from './testing/scripted-model-provider.js';
export type { ModelScript, Deferred } from './testing/scripted-model-provider.js';
export { ActorHarness } from './testing/actor-runtime-harness.js';
export type { HarnessOptions } from './testing/actor-runtime-harness.js';
export { RecordingObserver } from './testing/recording-observer.js';
export { T0, utf8Bytes, eventElement, resultElement, approvalElement, timerElement, timerFiring } from './testing/inbox-elements.js';
export type { ElementOptions, ResultOptions, ApprovalOptions, TimerOptions } from './testing/inbox-elements.js';
export { journalingTestAddressing, testAddressing } from './testing/test-addressing.js';
export { checkAgainstSnapshot, snapshotOfRecordedKey } from './testing/key-snapshot-check.js';
export type { SnapshotCheckOptions, RecordedKey } from './testing/key-snapshot-check.js';
