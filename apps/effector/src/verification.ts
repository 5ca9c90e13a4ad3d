/**
 * Phase 0 of every intent: signature verification (beam-agents §1.19). Pure: the decision is a
 * function of the mode, the intent and the keyring. A refused intent gets an error record and
 * NOTHING else — no result of any status (its key, id and seq are unauthenticated and would enter
 * the resume path), no dedup-store call (a forgery reusing a genuine id cannot take its claim),
 * no expiry verdict — and is acknowledged, so a forged head of the stream cannot wedge it.
 */
import type { KeyObject } from 'node:crypto';
import { ErrorReason, verifyIntent, type ToolIntentDoc } from '#core';

/** How strictly intents are verified (`effector.verification`). */
export const VerificationMode = {
  /** Signatures are ignored (byte-for-byte the unsigned behaviour). */
  Off: 'off',
  /** Signed intents must verify; unsigned ones are accepted and counted (the roll-out step). */
  Permissive: 'permissive',
  /** Every intent must carry a valid signature from a known key. */
  Require: 'require',
} as const;
export type VerificationMode = (typeof VerificationMode)[keyof typeof VerificationMode];

/** The verdict on one intent. */
export type VerificationDecision =
  /** Verified, or verification is off: proceed. */
  | { readonly kind: 'accept' }
  /** Unsigned under `permissive`: proceed, and count it (switch to `require` once this stays 0). */
  | { readonly kind: 'accept_unsigned' }
  /** Refused with an error record of `reason`; `detail` names identity fields only, never arguments. */
  | { readonly kind: 'refuse'; readonly reason: ErrorReason; readonly detail: string };

/**
 * Decides whether `intent` may proceed. A bad MAC or an unknown scheme is refused in every
 * verifying mode; an unknown key id is refused with its own reason; an unsigned intent is refused
 * under `require` only.
 */
export function decideVerification(mode: VerificationMode, intent: ToolIntentDoc, keyring: ReadonlyMap<string, Uint8Array | KeyObject>): VerificationDecision {
  if (mode === VerificationMode.Off) return { kind: 'accept' };
  const who = `intent ${JSON.stringify(intent.intentId)} (tool ${JSON.stringify(intent.toolName)})`;
  const result = verifyIntent(intent, keyring);
  switch (result.kind) {
    case 'ok':
      return { kind: 'accept' };
    case 'unsigned':
      return mode === VerificationMode.Require
        ? { kind: 'refuse', reason: ErrorReason.UnsignedIntent, detail: `${who} carries no signature; verification requires one` }
        : { kind: 'accept_unsigned' };
    case 'bad_signature':
      return { kind: 'refuse', reason: ErrorReason.BadSignature, detail: `${who} signed with key ${JSON.stringify(intent.signingKeyId)}: the signature does not verify` };
    case 'unknown_signing_key':
      return { kind: 'refuse', reason: ErrorReason.UnknownSigningKey, detail: `${who} is signed with key ${JSON.stringify(result.keyId)}, which this effector does not hold` };
  }
}
