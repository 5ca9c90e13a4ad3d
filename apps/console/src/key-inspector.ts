/**
 * The key inspector: an agent and a key as the user typed them become the canonical key token
 * (`encodeKeyToken`), and the console reads the key's committed state document (decoded), its
 * recent outputs, its error records of the last day and a trace link. Read-only.
 */
import { decodeActorDocument, decodeErrorRecord } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';
import { keyDigest } from '#telemetry';
import { bytesView, stateView, type BytesView, type StateView } from './state-view.js';
import { keyText, type ConsoleNats } from './console-nats.js';
import { ERRORS_WINDOW_MS } from './errors-view.js';
import { storedMessages } from './stored-messages.js';
import { traceLink } from './trace-link.js';

/** The inspector's page for one key. */
export interface KeyInspection {
  readonly agent: string;
  readonly key: string;
  readonly keyToken: string;
  readonly partition: number;
  /** Null when the key never committed (or was erased). */
  readonly state: StateView | null;
  readonly outputs: readonly { readonly seq: number; readonly activationSeq: string | undefined; readonly storedAtMs: number; readonly body: BytesView }[];
  readonly errors: readonly { readonly seq: number; readonly reason: string; readonly detail: string; readonly eventTimeMs: number; readonly storedAtMs: number }[];
  readonly traceUrl: string | undefined;
}

/** How the trace link is built. */
export interface TraceSettings {
  readonly template: string;
  /** `AGENTS_TRACE_KEY_SALT`, so the digest matches the spans' `agents.key` (never sent to the browser). */
  readonly salt: string;
}

/** Inspects `agent`/`key` (the key as text). */
export async function inspectKey(nats: ConsoleNats, agent: string, key: string, trace: TraceSettings, nowMs: number): Promise<KeyInspection> {
  const { topology } = nats;
  const bytes = keyFromText(key);
  const token = encodeKeyToken(bytes);
  const entry = await nats.state.get(topology.stateKey(agent, token));
  const state = entry === null || entry.operation !== 'PUT' ? null : stateView(decodeActorDocument(entry.value), entry.revision);
  const outputs = await storedMessages(nats.js, { stream: topology.streams.output.name, filter: topology.output(agent, token), limit: 20 });
  const errorMessages = await storedMessages(nats.js, { stream: topology.streams.errors.name, filter: topology.errorsFilter(agent), limit: nats.maxMessages, sinceMs: nowMs - ERRORS_WINDOW_MS });
  const errors = errorMessages.flatMap((msg) => {
    try {
      const record = decodeErrorRecord(msg.data);
      if (!Buffer.from(record.entityKey).equals(Buffer.from(bytes))) return [];
      return [{ seq: msg.seq, reason: record.reason, detail: record.detail, eventTimeMs: record.eventTimeMs, storedAtMs: msg.storedAtMs }];
    } catch {
      return [];
    }
  });
  return {
    agent,
    key: keyText(bytes),
    keyToken: token,
    partition: topology.partitionOf(token),
    state,
    outputs: outputs
      .reverse()
      .map((msg) => ({ seq: msg.seq, activationSeq: msg.headers.find((h) => h.name === 'Agents-Seq')?.value, storedAtMs: msg.storedAtMs, body: bytesView(msg.data) })),
    errors: errors.reverse().slice(0, 20),
    traceUrl: traceLink(trace.template, { keyDigest: keyDigest(token, trace.salt), agent, traceId: state?.continuation?.traceId ?? '' }),
  };
}
