/**
 * The baseline's intent and tool-result bodies: small JSON documents carrying what the broker
 * hops need (which intent, for which agent and key). The runtime's are protobuf with more fields
 * (signature, expiry, arguments, trace context); sizes are of the same order (a few hundred bytes).
 */

/** A tool intent as the baseline worker publishes it. */
export interface BaselineIntent {
  readonly intentId: string;
  readonly agent: string;
  readonly key: string;
  readonly tool: string;
}

/** A tool result as the baseline effector publishes it. */
export interface BaselineResult {
  readonly intentId: string;
  readonly status: 'ok';
  /** The tool's answer (canonical JSON bytes). */
  readonly value: Uint8Array;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Encodes `intent` as JSON bytes. */
export function encodeBaselineIntent(intent: BaselineIntent): Uint8Array {
  return utf8.encode(JSON.stringify(intent));
}

/**
 * Decodes an intent published by {@link encodeBaselineIntent}.
 *
 * @throws {Error} when the bytes are not such an intent.
 */
export function decodeBaselineIntent(bytes: Uint8Array): BaselineIntent {
  const value = JSON.parse(utf8Decoder.decode(bytes)) as Partial<BaselineIntent> | null;
  if (typeof value?.intentId !== 'string' || typeof value.agent !== 'string' || typeof value.key !== 'string' || typeof value.tool !== 'string') {
    throw new Error(`not a baseline intent: ${utf8Decoder.decode(bytes).slice(0, 200)}`);
  }
  return { intentId: value.intentId, agent: value.agent, key: value.key, tool: value.tool };
}

/** Encodes `result` as JSON bytes (the value as text). */
export function encodeBaselineResult(result: BaselineResult): Uint8Array {
  return utf8.encode(JSON.stringify({ intentId: result.intentId, status: result.status, value: utf8Decoder.decode(result.value) }));
}

/**
 * Decodes a result published by {@link encodeBaselineResult}.
 *
 * @throws {Error} when the bytes are not such a result.
 */
export function decodeBaselineResult(bytes: Uint8Array): BaselineResult {
  const parsed = JSON.parse(utf8Decoder.decode(bytes)) as { intentId?: unknown; status?: unknown; value?: unknown } | null;
  if (typeof parsed?.intentId !== 'string' || parsed.status !== 'ok' || typeof parsed.value !== 'string') {
    throw new Error(`not a baseline tool result: ${utf8Decoder.decode(bytes).slice(0, 200)}`);
  }
  return { intentId: parsed.intentId, status: 'ok', value: utf8.encode(parsed.value) };
}
