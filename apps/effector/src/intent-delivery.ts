/**
 * An intent message as the effector receives it, decoded. Pure: no NATS types, so the phase logic
 * is testable without a broker.
 */
import { AGENT_NAME_PATTERN, decodeToolIntent, type HeaderDoc, type ToolIntentDoc } from '#core';

/** One delivered message of the intents stream. */
export interface IntentDelivery {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly headers: readonly HeaderDoc[];
  /** The stream's timestamp of the message (deterministic per message; used only for error records of undecodable ones). */
  readonly publishedAtMs: number;
  /** How many times the broker delivered it (1 = first), when known; telemetry only (traces mark redeliveries). */
  readonly deliveries?: number;
}

/** A delivery with its body decoded, or the reason it does not decode. */
export type DecodedDelivery =
  | { readonly kind: 'intent'; readonly delivery: IntentDelivery; readonly intent: ToolIntentDoc }
  | { readonly kind: 'undecodable'; readonly delivery: IntentDelivery; readonly detail: string };

/** Decodes the body as a `ToolIntent`. Never throws. */
export function decodeDelivery(delivery: IntentDelivery): DecodedDelivery {
  try {
    return { kind: 'intent', delivery, intent: decodeToolIntent(delivery.data) };
  } catch (error) {
    return { kind: 'undecodable', delivery, detail: `message on ${delivery.subject} is not a ToolIntent: ${(error as Error).message}` };
  }
}

/** Intent ids the effector accepts: a KV key and subject-safe token (the runtime mints uuid v5). */
export const INTENT_ID_PATTERN = /^[A-Za-z0-9_=-]{1,128}$/;

/**
 * Why a decoded intent cannot be answered on a key, or undefined: it needs an intent id usable as
 * a dedup key and message id, a valid agent name and a non-empty entity key. Checked after
 * verification, so a forgery is refused as one rather than as malformed.
 */
export function routingProblem(intent: ToolIntentDoc): string | undefined {
  const who = `intent ${JSON.stringify(intent.intentId.slice(0, 128))}`;
  if (!INTENT_ID_PATTERN.test(intent.intentId)) return `${who} has no usable intent id (1 to 128 of [A-Za-z0-9_=-])`;
  if (!AGENT_NAME_PATTERN.test(intent.agent)) return `${who} names no valid agent (${JSON.stringify(intent.agent.slice(0, 64))})`;
  if (intent.entityKey.length === 0) return `${who} has an empty entity key`;
  return undefined;
}
