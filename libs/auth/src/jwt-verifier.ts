/**
 * JWT bearer tokens, verified with `jose` against one configured key source: a shared secret
 * (HS256/384/512), a public key in SPKI PEM (RS256, ES256, EdDSA, …), or a JWKS URL (keys fetched
 * and cached by `jose`, refetched when a token names an unknown `kid`: key rotation at the issuer
 * needs no restart here). The issuer and audience are always checked, the accepted algorithms are
 * pinned to the key source (no `alg: none`, no HMAC-with-a-public-key confusion), and time is read
 * from the injected clock with a small tolerance.
 *
 * Claims: `sub` is the principal id (required); roles come from a configurable claim (an array or
 * a space-separated string; unknown names are dropped); scopes from `scope` (space-separated,
 * RFC 8693) or `scp` (array).
 */
import { createRemoteJWKSet, errors, importSPKI, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey, CryptoKey } from 'jose';
import type { Clock } from '#core';
import { AuthRefusal, refused, type AuthOutcome } from './auth-outcome.js';
import { isRole, type Role } from './role.js';
import { AuthConfigError } from './errors.js';

/** Where the verification keys come from. */
export type JwtKeySource =
  | { readonly kind: 'secret'; readonly secret: Uint8Array; readonly algorithms?: readonly string[] }
  | { readonly kind: 'public-key'; readonly pem: string; readonly algorithm: string }
  | { readonly kind: 'jwks'; readonly url: string; readonly algorithms?: readonly string[] };

/** What a token must say and where its grants are. */
export interface JwtVerifierOptions {
  /** The required `iss`. */
  readonly issuer: string;
  /** The required `aud` (one of the token's audiences). */
  readonly audience: string;
  /** The key source. */
  readonly key: JwtKeySource;
  /** The claim holding the roles; default `roles`. */
  readonly rolesClaim?: string;
  /** Accepted clock skew, in seconds, on `exp`, `nbf` and `iat`; default 30. */
  readonly clockToleranceSec?: number;
}

/** Verifies presented JWTs. */
export interface JwtVerifier {
  /**
   * Verifies one token. Never throws: a bad token is a refusal. Only a JWKS source does I/O (a
   * cached fetch); if that fails the outcome is `verifier_unavailable`.
   */
  verify(token: string): Promise<AuthOutcome>;
}

const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** 256 bits: RFC 7518 §3.2 asks for a key at least as long as the hash. */
const MIN_SECRET_BYTES = 32;

/**
 * Builds a verifier. A PEM key is parsed here, so a bad key fails at start-up, not on the first
 * request.
 *
 * @throws {AuthConfigError} for a short secret, an algorithm outside the key kind's family, or a
 * PEM that does not parse.
 */
export async function createJwtVerifier(options: JwtVerifierOptions, clock: Clock): Promise<JwtVerifier> {
  const { key, algorithms } = await resolveKey(options.key);
  const rolesClaim = options.rolesClaim ?? 'roles';
  const clockTolerance = options.clockToleranceSec ?? 30;
  return {
    async verify(token: string): Promise<AuthOutcome> {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key as JWTVerifyGetKey, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms: [...algorithms],
          clockTolerance,
          currentDate: new Date(clock.nowMs()),
          requiredClaims: ['sub'],
        }));
      } catch (error) {
        return refusalOf(error, options.key.kind === 'jwks');
      }
      const sub = payload.sub;
      if (typeof sub !== 'string' || sub === '') return refused(AuthRefusal.invalid_token, 'JWT sub claim is empty');
      return {
        ok: true,
        principal: {
          id: sub,
          roles: rolesOf(payload[rolesClaim]),
          scopes: scopesOf(payload),
          via: 'jwt',
          expiresAtMs: typeof payload.exp === 'number' ? payload.exp * 1000 : undefined,
        },
      };
    },
  };
}

async function resolveKey(
  source: JwtKeySource,
): Promise<{ readonly key: Uint8Array | CryptoKey | JWTVerifyGetKey; readonly algorithms: readonly string[] }> {
  switch (source.kind) {
    case 'secret': {
      if (source.secret.byteLength < MIN_SECRET_BYTES) {
        throw new AuthConfigError(`JWT secret must be at least ${MIN_SECRET_BYTES} bytes`);
      }
      return { key: source.secret, algorithms: pinned(source.algorithms ?? HMAC_ALGORITHMS, HMAC_ALGORITHMS) };
    }
    case 'public-key': {
      const [algorithm] = pinned([source.algorithm], ASYMMETRIC_ALGORITHMS);
      try {
        return { key: await importSPKI(source.pem, algorithm ?? source.algorithm), algorithms: [source.algorithm] };
      } catch (error) {
        throw new AuthConfigError(`JWT public key does not parse as an SPKI PEM for ${source.algorithm}`, { cause: error });
      }
    }
    case 'jwks':
      return {
        key: createRemoteJWKSet(new URL(source.url)),
        algorithms: pinned(source.algorithms ?? ASYMMETRIC_ALGORITHMS, ASYMMETRIC_ALGORITHMS),
      };
  }
}

/** Keeps `wanted` inside `family`, or fails: a key kind accepts only its own algorithms. */
function pinned(wanted: readonly string[], family: readonly string[]): readonly string[] {
  const stray = wanted.filter((algorithm) => !family.includes(algorithm));
  if (stray.length > 0 || wanted.length === 0) {
    throw new AuthConfigError(`JWT algorithms ${JSON.stringify(wanted)} must be a non-empty subset of ${family.join(', ')}`);
  }
  return wanted;
}

function refusalOf(error: unknown, remote: boolean): AuthOutcome {
  if (error instanceof errors.JWTExpired) return refused(AuthRefusal.expired_token, 'JWT expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return refused(AuthRefusal.expired_token, 'JWT not yet valid (nbf)');
    return refused(AuthRefusal.invalid_token, `JWT claim ${error.claim} rejected (${error.reason})`);
  }
  // A key set that cannot be fetched (timeout, connection refused, non-200) is not the token's fault.
  if (remote && (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError) || error.code === 'ERR_JOSE_GENERIC')) {
    return refused(AuthRefusal.verifier_unavailable, 'JWT key set could not be fetched');
  }
  if (error instanceof errors.JOSEError) return refused(AuthRefusal.invalid_token, `JWT rejected (${error.code})`);
  return refused(AuthRefusal.invalid_token, 'JWT rejected');
}

function rolesOf(claim: unknown): Role[] {
  const names = typeof claim === 'string' ? claim.split(' ') : Array.isArray(claim) ? claim : [];
  return [...new Set(names.filter(isRole))];
}

function scopesOf(payload: JWTPayload): string[] {
  const scope = payload.scope;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  const scp = payload.scp;
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string' && s !== '');
  return [];
}
