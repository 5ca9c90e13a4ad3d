/**
 * One {@link ActorRuntime} wired to in-memory ports (CAS store, recording publisher, manual
 * timers, scripted provider) for specs of the per-message protocol (ARCHITECTURE §5). Every
 * `process` is driven by the manual clock, so timeouts and backoffs cost no real time. Fixed
 * jitter (`random` = 0.5): a run is fully reproducible.
 */
import type { Addressing } from '../actor/addressing.js';
import type { ActorDocument, OutboxEntryDoc } from '../actor/actor-document.js';
import { ActorRuntime, type ActorRuntimeDeps, type ElementScope, type ProcessOutcome } from '../actor/actor-runtime.js';
import type { BackoffPolicy } from '../actor/backoff.js';
import type { DirectElementScreen } from '../actor/element-refusal.js';
import { decodeErrorRecord, type ErrorRecordFields } from '../actor/error-record.js';
import type { InboxElement } from '../actor/inbox-element.js';
import type { IntentSigner } from '../actor/outbox-entries.js';
import type { TimerIndex } from '../actor/timer-index.js';
import type { AgentDefinition } from '../agent/agent-definition.js';
import { entityKeyHex } from '../ids/entity-key-hex.js';
import type { ModelProvider } from '../model/model-request.js';
import { InMemoryStateStore } from './in-memory-state-store.js';
import { eventElement, type ElementOptions } from './inbox-elements.js';
import { ManualTimers } from './manual-timers.js';
import { RecordingObserver } from './recording-observer.js';
import { RecordingOutboxPublisher } from './recording-outbox-publisher.js';
import { ScriptedModelProvider } from './scripted-model-provider.js';
import { testAddressing } from './test-addressing.js';

/** What an {@link ActorHarness} is built from; everything but `agents` has a default. */
export interface HarnessOptions {
  readonly agents: readonly AgentDefinition[];
  readonly provider?: ModelProvider;
  readonly store?: InMemoryStateStore;
  readonly publisher?: RecordingOutboxPublisher;
  readonly activationTimeoutMs?: number;
  readonly maxDocumentBytes?: number;
  readonly cacheCapacity?: number;
  readonly backoff?: BackoffPolicy;
  /** Attempts of a retryably failing activation (absent: 1). */
  readonly maxActivationAttempts?: number;
  /** Where the manual clock starts (processing time; never an input of an activation). */
  readonly clockStartMs?: number;
  readonly ownerEpoch?: number;
  /** Signs published intents (absent: unsigned). */
  readonly signer?: IntentSigner;
  /** Receives the timer index hooks (absent: no durable timers). */
  readonly timerIndex?: TimerIndex;
  /** Screens direct elements (absent: direct elements are not validated). */
  readonly screenDirect?: DirectElementScreen;
  /** The long-term tier (absent: not configured). */
  readonly longterm?: ActorRuntimeDeps['longterm'];
  /** The per-agent token counter (absent: the runtime's own in-memory one). */
  readonly agentLedger?: ActorRuntimeDeps['agentLedger'];
  /** Where outbox entries go (absent: {@link testAddressing}, which journals nothing). */
  readonly addressing?: Addressing;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** The runtime under test with its fakes exposed for assertions. */
export class ActorHarness {
  readonly store: InMemoryStateStore;
  readonly publisher: RecordingOutboxPublisher;
  readonly timers: ManualTimers;
  readonly provider: ModelProvider;
  readonly observer = new RecordingObserver();
  readonly runtime: ActorRuntime;
  readonly ownerEpoch: number;
  private nextInboxSeq = 1;

  constructor(options: HarnessOptions) {
    this.store = options.store ?? new InMemoryStateStore();
    this.publisher = options.publisher ?? new RecordingOutboxPublisher();
    this.timers = new ManualTimers(options.clockStartMs ?? 0);
    this.provider = options.provider ?? ScriptedModelProvider.replying('pong');
    this.ownerEpoch = options.ownerEpoch ?? 1;
    this.runtime = new ActorRuntime({
      store: this.store,
      publisher: this.publisher,
      agents: new Map(options.agents.map((agent) => [agent.name, agent])),
      provider: this.provider,
      addressing: options.addressing ?? testAddressing,
      timers: this.timers,
      monotonicMs: this.timers.monotonicMs,
      nowMs: this.timers.monotonicMs,
      random: () => 0.5,
      activationTimeoutMs: options.activationTimeoutMs ?? 30_000,
      maxDocumentBytes: options.maxDocumentBytes ?? 1_000_000,
      cacheCapacity: options.cacheCapacity ?? 16,
      backoff: options.backoff ?? { baseMs: 100, maxMs: 5_000 },
      ...(options.maxActivationAttempts !== undefined ? { maxActivationAttempts: options.maxActivationAttempts } : {}),
      observer: this.observer,
      ...(options.signer ? { signer: options.signer } : {}),
      ...(options.timerIndex ? { timerIndex: options.timerIndex } : {}),
      ...(options.longterm ? { longterm: options.longterm } : {}),
      ...(options.screenDirect ? { screenDirect: options.screenDirect } : {}),
      ...(options.agentLedger ? { agentLedger: options.agentLedger } : {}),
    });
  }

  /** The state key of `agent`/`key` (hex key; the services use the routing key token). */
  static stateKey(agent: string, key: string | Uint8Array): string {
    return `${agent}.${entityKeyHex(typeof key === 'string' ? utf8.encode(key) : key)}`;
  }

  scope(agent: string, key: string | Uint8Array, overrides: Partial<Omit<ElementScope, 'stateKey' | 'agent'>> = {}): ElementScope {
    return {
      stateKey: ActorHarness.stateKey(agent, key),
      agent,
      ownerEpoch: overrides.ownerEpoch ?? this.ownerEpoch,
      signal: overrides.signal ?? new AbortController().signal,
    };
  }

  /** Processes `element` for `agent`, firing timers until it settles. */
  process(agent: string, element: InboxElement, overrides: Partial<Omit<ElementScope, 'stateKey' | 'agent'>> = {}): Promise<ProcessOutcome> {
    if (element.inboxSeq >= this.nextInboxSeq) this.nextInboxSeq = element.inboxSeq + 1;
    return this.timers.settle(this.runtime.process(element, this.scope(agent, element.entityKey, overrides)));
  }

  /** Appends an event to the (single, shared) inbox lane and processes it; returns the element too. */
  async send(agent: string, key: string, event: string, options: ElementOptions = {}): Promise<{ outcome: ProcessOutcome; element: InboxElement }> {
    const element = eventElement(this.nextInboxSeq, key, event, options);
    const outcome = await this.process(agent, element);
    return { outcome, element };
  }

  /** The committed document of `agent`/`key`, decoded from the store's bytes. */
  doc(agent: string, key: string | Uint8Array): ActorDocument | undefined {
    return this.store.doc(ActorHarness.stateKey(agent, key));
  }

  /** The stored bytes of `agent`/`key`. */
  bytes(agent: string, key: string | Uint8Array): Uint8Array | undefined {
    return this.store.bytes(ActorHarness.stateKey(agent, key));
  }

  /** Texts of the outputs the streams hold for `agent`/`key`, in order (deduplicated by msg id). */
  outputs(agent: string, key: string): string[] {
    return this.publisher.storedOn(testAddressing.output(agent, utf8.encode(key))).map((entry) => text.decode(entry.payload));
  }

  /** The error records the streams hold for `agent`, in order. */
  errors(agent: string): ErrorRecordFields[] {
    return this.publisher.stored.filter((entry) => entry.subject.startsWith(`agents.errors.${agent}.`)).map((entry) => decodeErrorRecord(Uint8Array.from(entry.payload)));
  }

  /** Every entry the streams hold. */
  get stored(): readonly OutboxEntryDoc[] {
    return this.publisher.stored;
  }
}
