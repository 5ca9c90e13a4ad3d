import { createHmac, timingSafeEqual } from 'node:crypto';
import { v1 } from '#proto';
import { entityKeyHex } from '../ids/entity-key-hex.js';
import { encodeApproval, encodeToolResult } from '../actor/inbox-codec.js';
import type { InboxPayload } from '../actor/inbox-element.js';
import type { ClusterKeys } from './cluster-keys.js';
import type { VerificationResult } from './intent-signing.js';

/** The scheme token of an `Agents-Auth` header: HMAC-SHA256 with a cluster key. */
const SCHEME = 'hmac-sha256';
const DOMAIN = 'nats-agents/element/v1\n';

/** An inbox element that re-enters a key from a runtime component: it must be sealed. */
export type SealedKind = 'result' | 'approval' | 'timer';

/** What a seal binds: the element's kind, its agent and key, and its canonical payload bytes. */
export interface SealInput {
  readonly kind: SealedKind;
  readonly agent: string;
  readonly entityKey: Uint8Array;
  /** The deterministic protobuf encoding of the `ToolResult`, `Approval` or `TimerFired`. */
  readonly payload: Uint8Array;
}

/** A seal: the `Agents-Auth` header value and the `Nats-Msg-Id` derived from the same MAC. */
export interface Seal {
  readonly header: string;
  readonly msgId: string;
}

/**
 * The canonical bytes a seal covers of an element payload: the payload's own deterministic
 * encoding (so a re-encoding by ingress, or a decode and re-encode in the activator, covers the
 * same bytes). `undefined` for an event, which is never sealed.
 */
export function sealedPayloadBytes(payload: InboxPayload): { readonly kind: SealedKind; readonly payload: Uint8Array } | undefined {
  switch (payload.kind) {
    case 'event':
      return undefined;
    case 'result':
      return { kind: 'result', payload: encodeToolResult(payload.result) };
    case 'approval':
      return { kind: 'approval', payload: encodeApproval(payload.approval) };
    case 'timer':
      return { kind: 'timer', payload: v1.TimerFired.encode({ ...payload.timer }).finish() };
  }
}

/**
 * Seals an element with the active cluster key: `Agents-Auth: hmac-sha256 <keyId> <base64url MAC>`,
 * the MAC over (kind, agent, key, payload). The message id is `<kind>-` + the first 16 MAC bytes in
 * hex: deterministic (the same element and key always give the same seal, so a republish after a
 * crash or a replay is stored once) and unpredictable to anyone without the key, so a forger cannot
 * occupy the id inside the stream's duplicate window. `undefined` when this process holds no
 * active key. One HMAC; the key object is reused.
 */
export function sealElement(keys: ClusterKeys, input: SealInput): Seal | undefined {
  if (keys.active === undefined) return undefined;
  const mac = macOf(keys.active.key, input);
  return { header: `${SCHEME} ${keys.active.keyId} ${mac.toString('base64url')}`, msgId: `${input.kind}-${mac.toString('hex', 0, 16)}` };
}

/**
 * Verifies the `Agents-Auth` header of an element in constant time. Never throws: a forgery is an
 * outcome. A header that does not parse, names another scheme or carries a wrong MAC is
 * `bad_signature`; a key id outside the keyring is `unknown_signing_key`; no header is `unsigned`.
 */
export function verifySeal(keys: ClusterKeys, input: SealInput, header: string | undefined): VerificationResult {
  if (header === undefined || header === '') return { kind: 'unsigned' };
  const parts = header.trim().split(' ');
  if (parts.length !== 3 || parts[0] !== SCHEME) return { kind: 'bad_signature' };
  const keyId = parts[1] ?? '';
  const key = keys.verifying.get(keyId);
  if (key === undefined) return { kind: 'unknown_signing_key', keyId };
  const actual = Buffer.from(parts[2] ?? '', 'base64url');
  const expected = macOf(key, input);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { kind: 'bad_signature' };
  return { kind: 'ok' };
}

/**
 * The `Nats-Msg-Id` of a signed intent: `intent-` + the first 16 bytes of its signature in hex. The
 * intent id itself stays public and deterministic (tools see it as an idempotency key); the message
 * id a forger would need to pre-empt the genuine publication in the duplicate window is keyed.
 */
export function signedIntentMessageId(signature: Uint8Array): string {
  return `intent-${Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('hex', 0, 16)}`;
}

/**
 * A message id keyed with the active cluster key: `k-` + 32 hex digits of HMAC(`text`). The same
 * text always gives the same id (retries are stored once), but nobody without the key can compute
 * it to occupy it first. `undefined` without an active key.
 */
export function keyedMessageId(keys: ClusterKeys, text: string): string | undefined {
  if (keys.active === undefined) return undefined;
  return `k-${createHmac('sha256', keys.active.key).update(`nats-agents/msg-id/v1\n${text}`).digest('hex').slice(0, 32)}`;
}

function macOf(key: Parameters<typeof createHmac>[1], input: SealInput): Buffer {
  return createHmac('sha256', key)
    .update(`${DOMAIN}${input.kind}\n${input.agent}\n${entityKeyHex(input.entityKey)}\n`)
    .update(input.payload)
    .digest();
}
