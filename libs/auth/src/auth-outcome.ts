/**
 * The verdict of verifying a credential: a principal, or a refusal with a closed reason. A
 * refusal is an answer, not an exception: edges map it to 401 with a problem document, and the
 * `detail` is safe to log (it never repeats the presented secret).
 */
import type { Principal } from './principal.js';

/** Why a credential was refused, one triage line each. */
export const AuthRefusal = {
  /** No credential at all: the caller did not sign in. */
  missing_credential: 'missing_credential',
  /** A credential that cannot be read: an unknown scheme, an empty value, a token that is not a JWT. */
  malformed_credential: 'malformed_credential',
  /** An API key whose hash is not configured: mistyped, revoked, or from another deployment. */
  unknown_api_key: 'unknown_api_key',
  /** A JWT with a bad signature, issuer, audience, algorithm or claims; or JWT sign-in is not configured. */
  invalid_token: 'invalid_token',
  /** A JWT past its `exp` (or before its `nbf`): the caller must fetch a new one. */
  expired_token: 'expired_token',
  /** The JWT key set could not be fetched: not the caller's fault; edges answer 503 and the caller retries. */
  verifier_unavailable: 'verifier_unavailable',
} as const;

/** One member of {@link AuthRefusal}. */
export type AuthRefusal = (typeof AuthRefusal)[keyof typeof AuthRefusal];

/** A verified principal, or a refusal with its reason and a loggable detail. */
export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: AuthRefusal; readonly detail: string };

/** Builds a refusal outcome. */
export function refused(reason: AuthRefusal, detail: string): AuthOutcome {
  return { ok: false, reason, detail };
}
