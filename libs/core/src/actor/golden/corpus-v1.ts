/**
 * The state-compat corpus of schema version 1 (GATE: compat, invariant 7): every state and wire
 * message kind as this binary encodes it, with the value each blob must decode to. Expected values
 * are literals, not computed by the code under test, so a change to an id derivation or a codec
 * shows up as a mismatch instead of moving both sides at once.
 *
 * FROZEN once released: when the schema moves to version 2, this file and `v1/` stay as they are
 * (the decode side then goes through the migration chain) and a `corpus-v2.ts` is added. Importing
 * this module has no side effects.
 */
import { v1 } from '#proto';
import type { ActorDocument, ToolIntentDoc } from '../actor-document.js';
import { decodeErrorRecord, encodeErrorRecord, type ErrorRecordFields } from '../error-record.js';
import {
  decodeApproval,
  decodeInboxEnvelope,
  decodeToolResult,
  encodeApproval,
  encodeInboxEnvelope,
  encodeToolResult,
  type InboxEnvelopeFields,
} from '../inbox-codec.js';
import type { ApprovalDoc, ToolResultDoc } from '../inbox-element.js';
import { decodeActorDocument, decodeToolIntent, encodeActorDocument, encodeToolIntent } from '../state-codec.js';

/** The schema version this corpus belongs to (its directory is `v1/`). */
export const CORPUS_VERSION = 1;

/** One golden blob. */
export interface GoldenCase {
  /** File name inside `v1/`. */
  readonly file: string;
  /** The bytes the generator writes for this case. */
  bytes(): Uint8Array;
  /** Decodes a blob with the current code. */
  decode(bytes: Uint8Array): unknown;
  /** What the blob must decode to, field by field. */
  readonly expected: unknown;
  /** Re-encodes `expected` with the current code; must give the blob's exact bytes. Absent for blobs a current binary would not write (future fields, unstamped versions). */
  reencode?(): Uint8Array;
  /** The generated message class, for blobs whose unknown fields must survive decode and re-encode. */
  readonly wire?: { decode(bytes: Uint8Array): object; encode(message: object): { finish(): Uint8Array } };
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));

/**
 * Fields from a future schema, appended after the known ones: field 99 as a varint (42) and
 * field 100 as a length-delimited string ("future"). No message of v1 uses these numbers.
 */
export const FUTURE_FIELDS = fromHex('98062a' + 'a20606' + Buffer.from('future').toString('hex'));

const T0 = 1_700_000_000_000;
const KEY = utf8('order-42');
const INTENT_0 = 'd4120b7e-5831-5cef-99a1-874eaa7f0c2d';
const INTENT_1 = '9f2c0d5c-a705-5bc2-8feb-144202eb0230';
const TRACE_7 = fromHex('0e63037ef9f45d48b9592c8ecdcac5db');
const TRACEPARENT = '00-0e63037ef9f45d48b9592c8ecdcac5db-00f067aa0ba902b7-01';
const PONG = utf8('{"choices":[{"message":{"content":"pong"}}]}');

const plainIntent: ToolIntentDoc = {
  intentId: INTENT_0,
  agent: 'triage',
  entityKey: KEY,
  seq: 7,
  stepIndex: 0,
  toolName: 'http.post',
  argsJson: '{"body":{"amount":12},"url":"https://ledger.example/hold"}',
  createdAtMs: T0,
  expiresAtMs: T0 + 3_600_000,
  attempt: 0,
  kind: 1,
  traceId: TRACE_7,
  signatureScheme: 0,
  signingKeyId: '',
  signature: new Uint8Array(0),
};

const approvalIntent: ToolIntentDoc = {
  ...plainIntent,
  intentId: INTENT_1,
  stepIndex: 1,
  toolName: 'approval',
  argsJson: '{"amount":12,"reason":"over limit"}',
  kind: 2,
};

const signedIntent: ToolIntentDoc = {
  ...plainIntent,
  signatureScheme: 1,
  signingKeyId: 'effector-2024',
  signature: fromHex('1a2fc26dc7ea5a2a4748b7cb2b1ef193d96ab2c99f93092f69e63075b28d1278'),
};

/** A v1 intent written before `kind`, `trace_id` and signatures were set (all unset on the wire). */
const legacyIntentWire: v1.ToolIntent.$Properties = {
  intentId: INTENT_0,
  entityKey: KEY,
  seq: 7,
  stepIndex: 0,
  toolName: 'http.post',
  argsJson: '{}',
  createdAtMs: T0,
  expiresAtMs: T0 + 3_600_000,
};
const legacyIntentDecoded: ToolIntentDoc = {
  intentId: INTENT_0,
  agent: '',
  entityKey: KEY,
  seq: 7,
  stepIndex: 0,
  toolName: 'http.post',
  argsJson: '{}',
  createdAtMs: T0,
  expiresAtMs: T0 + 3_600_000,
  attempt: 0,
  kind: 1,
  traceId: new Uint8Array(0),
  signatureScheme: 0,
  signingKeyId: '',
  signature: new Uint8Array(0),
};

const fullState: ActorDocument = {
  stateSchemaVersion: 1,
  agent: 'triage',
  entityKey: KEY,
  seq: 7,
  lastAppliedSeq: 1_234_567,
  ownerEpoch: 42,
  memory: {
    entries: [
      // scalar: tag 0x00 + {"name":"Ada"}
      { key: 'profile', value: fromHex('00' + Buffer.from('{"name":"Ada"}').toString('hex')), lastAccessMs: T0 - 1_000 },
      // ring: tag 0x01 + ["a", "b", ""] with 4-byte big-endian length prefixes
      { key: 'history', value: fromHex('01' + '0000000161' + '0000000162' + '00000000'), lastAccessMs: T0 },
    ],
    totalBytes: 44,
  },
  llmCache: {
    entries: [
      {
        cacheKey: '19f1064b619d49d35392eac7261cd7266c720671fc594f4b226f32bf0bee74ba',
        response: PONG,
        responseDigest: fromHex('c3ecd6f39969e539e1e0083ccdf0c50480ba5c05fa337f208d69f3ffcba40ae9'),
        createdAtMs: T0 - 5_000,
        lastAccessMs: T0,
        digestOnly: false,
      },
      {
        cacheKey: '6fc63565247226593c49a36e9da488e6e1c33a9a1fcd8a76f55573483136b880',
        response: new Uint8Array(0),
        responseDigest: fromHex('fc3acc7dbc4a2b1db2bc0de82fe3a74c756fcd736709442391640c5d21a5287e'),
        createdAtMs: T0 - 4_000,
        lastAccessMs: T0 - 4_000,
        digestOnly: true,
      },
    ],
    totalResponseBytes: PONG.length,
  },
  continuation: {
    seq: 7,
    stepIndex: 2,
    pendingIntentIds: [INTENT_0, INTENT_1],
    snapshot: utf8('{"stage":"awaiting-approval"}'),
    suspendedAtMs: T0,
    deadlineMs: T0 + 3_600_000,
    escalations: 1,
    traceId: TRACE_7,
  },
  pending: [plainIntent, approvalIntent],
  outbox: [
    {
      subject: 'agents.output.triage.order-42',
      msgId: 'b3c79ba7-8e1e-5f57-aa2c-ecdff67dccf2',
      payload: utf8('{"decision":"hold"}'),
      headers: [
        { name: 'Agents-Seq', value: '6' },
        { name: 'Agents-Event-Time', value: String(T0) },
        { name: 'traceparent', value: TRACEPARENT },
      ],
    },
    {
      subject: 'agents.errors.triage.activation_error',
      msgId: '270780e3-d94e-57cf-974d-b5e59ed8c9b3',
      payload: fromHex(
        '0a086f726465722d3432121061637469766174696f6e5f6572726f721a2d4572726f723a206b61626f6f6d206661696c65645f61745f737465703d312061667465723d6c6c6d5f63616c6c2080d095ffbc312a06747269616765',
      ),
      headers: [
        { name: 'Agents-Reason', value: 'activation_error' },
        { name: 'Agents-Agent', value: 'triage' },
        { name: 'Agents-Event-Time', value: String(T0) },
      ],
    },
  ],
  timers: [
    { timerId: 'deadline', kind: 1, dueAtMs: T0 + 3_600_000 },
    { timerId: 'idle', kind: 2, dueAtMs: T0 + 7_200_000 },
  ],
  deferred: [{ inboxSeq: 1_234_568, event: utf8('{"amount":5}'), eventTimeMs: T0 + 10, headers: [{ name: 'traceparent', value: TRACEPARENT }] }],
};

const emptyKeyState: ActorDocument = {
  stateSchemaVersion: 1,
  agent: 'triage',
  entityKey: new Uint8Array(0),
  seq: 0,
  lastAppliedSeq: 3,
  ownerEpoch: 1,
  memory: { entries: [], totalBytes: 0 },
  llmCache: { entries: [], totalResponseBytes: 0 },
  continuation: undefined,
  pending: [],
  outbox: [],
  timers: [],
  deferred: [],
};

const okResult: ToolResultDoc = {
  intentId: INTENT_0,
  entityKey: KEY,
  seq: 7,
  status: 1,
  payload: utf8('{"held":true}'),
  errorMessage: '',
  completedAtMs: T0 + 250,
};
const errorResult: ToolResultDoc = { ...okResult, status: 2, payload: new Uint8Array(0), errorMessage: 'ledger returned 409' };
const approval: ApprovalDoc = { intentId: INTENT_1, approved: true, approver: 'ada@example.com', decidedAtMs: T0 + 60_000, reason: 'within policy' };
const errorRecord: ErrorRecordFields = {
  agent: 'triage',
  entityKey: KEY,
  reason: 'activation_error',
  detail: 'Error: kaboom failed_at_step=1 after=llm_call',
  eventTimeMs: T0,
};
const envelope = (payload: InboxEnvelopeFields['payload']): InboxEnvelopeFields => ({ entityKey: KEY, eventTimeMs: T0 + 10, payload });
const eventEnvelope = envelope({ kind: 'event', event: utf8('{"amount":12}') });

/** A case whose blob is what the current encoder writes for `expected`. */
function current<T>(file: string, expected: T, encode: (value: T) => Uint8Array, decode: (bytes: Uint8Array) => T, wire?: GoldenCase['wire']): GoldenCase {
  return { file, expected, bytes: () => encode(expected), reencode: () => encode(expected), decode, ...(wire ? { wire } : {}) };
}

/** A case whose blob carries fields from a future schema after what the current encoder writes. */
function withFutureFields<T>(file: string, expected: T, encode: (value: T) => Uint8Array, decode: (bytes: Uint8Array) => T, wire: GoldenCase['wire']): GoldenCase {
  return { file, expected, bytes: () => concat(encode(expected), FUTURE_FIELDS), decode, ...(wire ? { wire } : {}) };
}

const wireOf = (type: { decode(bytes: Uint8Array): object; encode(message: never): { finish(): Uint8Array } }): GoldenCase['wire'] =>
  type as unknown as GoldenCase['wire'];

/** The whole v1 corpus. The list only grows: a spec fails if any file it names is missing. */
export const corpusV1: readonly GoldenCase[] = [
  current('actor-state-full.bin', fullState, encodeActorDocument, decodeActorDocument),
  current('actor-state-empty-key.bin', emptyKeyState, encodeActorDocument, decodeActorDocument),
  {
    file: 'actor-state-unstamped.bin',
    expected: { ...emptyKeyState, entityKey: KEY },
    bytes: () => encodeActorDocument({ ...emptyKeyState, entityKey: KEY, stateSchemaVersion: 0 }),
    decode: decodeActorDocument,
  },
  withFutureFields('actor-state-future-field.bin', fullState, encodeActorDocument, decodeActorDocument, wireOf(v1.ActorState)),

  current('inbox-envelope-event.bin', eventEnvelope, encodeInboxEnvelope, decodeInboxEnvelope, wireOf(v1.InboxEnvelope)),
  current('inbox-envelope-tool-result.bin', envelope({ kind: 'result', result: okResult }), encodeInboxEnvelope, decodeInboxEnvelope, wireOf(v1.InboxEnvelope)),
  current('inbox-envelope-approval.bin', envelope({ kind: 'approval', approval }), encodeInboxEnvelope, decodeInboxEnvelope, wireOf(v1.InboxEnvelope)),
  current(
    'inbox-envelope-timer.bin',
    envelope({ kind: 'timer', timer: { timerId: 'deadline', kind: 1, dueAtMs: T0 + 3_600_000 } }),
    encodeInboxEnvelope,
    decodeInboxEnvelope,
    wireOf(v1.InboxEnvelope),
  ),
  withFutureFields('inbox-envelope-future-field.bin', eventEnvelope, encodeInboxEnvelope, decodeInboxEnvelope, wireOf(v1.InboxEnvelope)),

  current('tool-intent-plain.bin', plainIntent, encodeToolIntent, decodeToolIntent, wireOf(v1.ToolIntent)),
  current('tool-intent-approval.bin', approvalIntent, encodeToolIntent, decodeToolIntent, wireOf(v1.ToolIntent)),
  current('tool-intent-signed.bin', signedIntent, encodeToolIntent, decodeToolIntent, wireOf(v1.ToolIntent)),
  {
    file: 'tool-intent-unset-kind.bin',
    expected: legacyIntentDecoded,
    bytes: () => v1.ToolIntent.encode(legacyIntentWire).finish(),
    decode: decodeToolIntent,
    wire: wireOf(v1.ToolIntent),
  },
  withFutureFields('tool-intent-future-field.bin', signedIntent, encodeToolIntent, decodeToolIntent, wireOf(v1.ToolIntent)),

  current('tool-result-ok.bin', okResult, encodeToolResult, decodeToolResult, wireOf(v1.ToolResult)),
  current('tool-result-error.bin', errorResult, encodeToolResult, decodeToolResult, wireOf(v1.ToolResult)),
  withFutureFields('tool-result-future-field.bin', okResult, encodeToolResult, decodeToolResult, wireOf(v1.ToolResult)),

  current('approval.bin', approval, encodeApproval, decodeApproval, wireOf(v1.Approval)),
  withFutureFields('approval-future-field.bin', approval, encodeApproval, decodeApproval, wireOf(v1.Approval)),

  current('error-record.bin', errorRecord, encodeErrorRecord, decodeErrorRecord, wireOf(v1.ErrorRecord)),
  withFutureFields('error-record-future-field.bin', errorRecord, encodeErrorRecord, decodeErrorRecord, wireOf(v1.ErrorRecord)),
];
