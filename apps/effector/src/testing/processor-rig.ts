/**
 * Builds an {@link IntentProcessor} over in-memory doubles and a manual clock, with one shared
 * call log (`log`) across store, tools and publisher so specs can assert phase order. Intents are
 * built with real derived ids and encoded with the real codec.
 */
import { createTopology } from '#routing';
import { encodeToolIntent, intentId, IntentKind, ManualTimers, RecordingOutboxPublisher, type AnyToolDefinition, type HeaderDoc, type ToolIntentDoc } from '#core';
import { InMemoryDedupStore } from '../dedup/in-memory-dedup-store.js';
import { decodeDelivery, type DecodedDelivery } from '../intent-delivery.js';
import type { IntentOutcome } from '../intent-outcome.js';
import { IntentProcessor, type ProcessScope } from '../intent-processor.js';
import { VerificationMode } from '../verification.js';
import { RecordingDedupStore, RecordingObserver } from './recording-doubles.js';

/** The agent of every rig intent. */
export const AGENT = 'triage';
/** The entity key (text) of rig intents unless overridden. */
export const KEY_TEXT = 'order-1';
/** Where the manual clock starts. */
export const START_MS = 1_700_000_000_000;
/** The rig's `effector.leaseMs`. */
export const LEASE_MS = 300_000;
/** The rig's `effector.resultTtlMs`. */
export const RESULT_TTL_MS = 86_400_000;
/** The rig's `effector.toolTimeoutMs`. */
export const TOOL_TIMEOUT_MS = 60_000;

const utf8 = new TextEncoder();

/** A tool intent for `AGENT`/`KEY_TEXT` with a real derived id; expires an hour after `START_MS`. */
export function toolIntent(overrides: Partial<ToolIntentDoc> = {}): ToolIntentDoc {
  const entityKey = overrides.entityKey ?? utf8.encode(KEY_TEXT);
  const seq = overrides.seq ?? 0;
  const stepIndex = overrides.stepIndex ?? 0;
  return {
    intentId: intentId(overrides.agent ?? AGENT, entityKey, seq, stepIndex),
    agent: AGENT,
    entityKey,
    seq,
    stepIndex,
    toolName: 'charge',
    argsJson: '{"cents":100}',
    createdAtMs: START_MS - 1_000,
    expiresAtMs: START_MS + 3_600_000,
    attempt: 0,
    kind: IntentKind.Tool,
    traceId: new Uint8Array(16),
    signatureScheme: 0,
    signingKeyId: '',
    signature: new Uint8Array(0),
    ...overrides,
  };
}

/** A delivery of `intent` (or of raw bytes) as the consumer would hand it over. */
export function deliveryOf(intent: ToolIntentDoc | Uint8Array, headers: readonly HeaderDoc[] = []): DecodedDelivery {
  const data = intent instanceof Uint8Array ? intent : encodeToolIntent(intent);
  const subject = intent instanceof Uint8Array ? `agents.intents.${AGENT}.charge` : `agents.intents.${intent.agent || '_'}.${intent.toolName || '_'}`;
  return decodeDelivery({ subject, data, headers, publishedAtMs: START_MS - 500 });
}

/** What a rig is built with. */
export interface RigOptions {
  /** The tools, built with the rig's shared log (tools push `tool <name>` to it when they run). */
  readonly tools?: (log: string[]) => readonly AnyToolDefinition[];
  readonly verification?: VerificationMode;
  readonly keyring?: ReadonlyMap<string, Uint8Array>;
  /** Share a store (and clock) with another rig: a second replica, or a fresh process after a crash. */
  readonly shareWith?: ProcessorRig;
  readonly secret?: (reference: string) => string;
  readonly maxResultBytes?: number;
}

/** A processor with its doubles. */
export interface ProcessorRig {
  readonly processor: IntentProcessor;
  readonly clock: ManualTimers;
  readonly backing: InMemoryDedupStore;
  readonly store: RecordingDedupStore;
  readonly publisher: RecordingOutboxPublisher;
  readonly observer: RecordingObserver;
  /** Store calls, tool runs (`tool <name>`, pushed by spec tools) and publishes, in order. */
  readonly log: string[];
  readonly stopping: AbortController;
  readonly halted: AbortController;
  readonly scope: ProcessScope;
  /** Processes `intent` (or a prepared delivery) to completion on the manual clock. */
  run(intent: ToolIntentDoc | DecodedDelivery): Promise<IntentOutcome>;
}

let rigs = 0;

/** A processor over fresh doubles, or over `options.shareWith`'s store and clock. */
export function processorRig(options: RigOptions = {}): ProcessorRig {
  const clock = options.shareWith?.clock ?? new ManualTimers(START_MS);
  const backing = options.shareWith?.backing ?? new InMemoryDedupStore(() => clock.nowMs());
  const log: string[] = [];
  const store = new RecordingDedupStore(backing, log);
  const publisher = new RecordingOutboxPublisher(log);
  const observer = new RecordingObserver();
  const stopping = new AbortController();
  const halted = new AbortController();
  let tokens = 0;
  const rigId = ++rigs;
  const processor = new IntentProcessor({
    store,
    publisher,
    topology: createTopology({ partitions: 4 }),
    tools: new Map((options.tools?.(log) ?? []).map((t) => [t.name, t])),
    verification: options.verification ?? VerificationMode.Off,
    keyring: options.keyring ?? new Map(),
    clock,
    timers: clock,
    random: () => 0.5,
    newToken: () => `token-${rigId}-${++tokens}`,
    secret:
      options.secret ??
      (() => {
        throw new Error('no secrets in this rig');
      }),
    observer,
    leaseMs: LEASE_MS,
    resultTtlMs: RESULT_TTL_MS,
    toolTimeoutMs: TOOL_TIMEOUT_MS,
    maxResultBytes: options.maxResultBytes,
  });
  const scope: ProcessScope = { stopping: stopping.signal, halted: halted.signal };
  return {
    processor,
    clock,
    backing,
    store,
    publisher,
    observer,
    log,
    stopping,
    halted,
    scope,
    run: (intent) => clock.settle(processor.process(isDecoded(intent) ? intent : deliveryOf(intent), scope)),
  };
}

function isDecoded(value: ToolIntentDoc | DecodedDelivery): value is DecodedDelivery {
  return typeof value.kind === 'string';
}
