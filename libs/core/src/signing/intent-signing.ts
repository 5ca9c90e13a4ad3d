import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { ToolIntentDoc } from '../actor/actor-document.js';
import { encodeToolIntent } from '../actor/state-codec.js';

/** `nats_agents.v1.SignatureScheme.SIGNATURE_SCHEME_HMAC_SHA256`. */
export const HMAC_SHA256 = 1;

/**
 * A signing key: its id (travels in the intent) and its secret (never does), as bytes or as a
 * `KeyObject` built once (no key material is copied per intent).
 */
export interface SigningKey {
  readonly keyId: string;
  readonly secret: Uint8Array | KeyObject;
}

/** How verification went. Never throws: a forgery is an outcome, not an exception. */
export type VerificationResult =
  /** Signed with a known key and the MAC matches. */
  | { readonly kind: 'ok' }
  /** Carries no signature. */
  | { readonly kind: 'unsigned' }
  /** The MAC does not match, or the scheme is unknown (fails closed). */
  | { readonly kind: 'bad_signature' }
  /** Signed with a key id this verifier does not hold. */
  | { readonly kind: 'unknown_signing_key'; readonly keyId: string };

/**
 * The bytes an intent's signature covers: its deterministic encoding with the three signature
 * fields cleared. Deterministic, so a replayed activation re-signs identically.
 */
export function signingInput(intent: ToolIntentDoc): Uint8Array {
  return encodeToolIntent({ ...intent, signatureScheme: 0, signingKeyId: '', signature: new Uint8Array(0) });
}

/** A signed copy of `intent` (HMAC-SHA256 over {@link signingInput}); the original is untouched. */
export function signIntent(intent: ToolIntentDoc, key: SigningKey): ToolIntentDoc {
  const stamped: ToolIntentDoc = { ...intent, signatureScheme: HMAC_SHA256, signingKeyId: key.keyId, signature: new Uint8Array(0) };
  const mac = createHmac('sha256', key.secret).update(signingInput(stamped)).digest();
  return { ...stamped, signature: new Uint8Array(mac) };
}

/**
 * Verifies an intent against a keyring (key id → secret) in constant time. Callers decide what
 * each outcome means under their mode (off / permissive / require).
 */
export function verifyIntent(intent: ToolIntentDoc, keyring: ReadonlyMap<string, Uint8Array | KeyObject>): VerificationResult {
  if (intent.signature.length === 0 && intent.signatureScheme === 0) return { kind: 'unsigned' };
  if (intent.signatureScheme !== HMAC_SHA256) return { kind: 'bad_signature' };
  const secret = keyring.get(intent.signingKeyId);
  if (secret === undefined) return { kind: 'unknown_signing_key', keyId: intent.signingKeyId };
  const expected = createHmac('sha256', secret).update(signingInput(intent)).digest();
  const actual = Buffer.from(intent.signature);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { kind: 'bad_signature' };
  return { kind: 'ok' };
}
