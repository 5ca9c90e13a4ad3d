/**
 * API keys: long random secrets that a caller presents as-is, of which the deployment keeps only
 * a SHA-256 digest. Because a key is random (at least 128 bits, see {@link API_KEY_MIN_LENGTH}),
 * a fast digest is as strong as a slow password hash here, and lets every request be checked
 * without a per-request cost. The digest of the presented key is compared with each configured
 * digest in constant time, so the time taken says nothing about how close a guess was.
 *
 * Rotation with no downtime: configure the new key's digest beside the old one (two entries may
 * share an `id`), move callers over, then remove the old digest.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthConfigError } from './errors.js';
import { refused, AuthRefusal, type AuthOutcome } from './auth-outcome.js';
import type { Role } from './role.js';

/** The shortest accepted API key, in characters: 22 base64url characters carry 128 bits. */
export const API_KEY_MIN_LENGTH = 22;

/** The prefix of a configured digest: `sha256:` then 64 lowercase hex digits. */
const HASH_PATTERN = /^sha256:([0-9a-f]{64})$/;

/** One configured API key: who it speaks for and the digest of its secret. */
export interface ApiKeyEntry {
  /** The principal's name in audit lines (for example `ops-alice` or `billing-service`). */
  readonly id: string;
  /** `sha256:<hex>` of the key, as printed by {@link hashApiKey}. */
  readonly hash: string;
  /** Roles granted to the key's holder. */
  readonly roles: readonly Role[];
  /** Scopes granted to the key's holder (meaning defined by the edge that checks them). */
  readonly scopes: readonly string[];
}

/**
 * The configured digest of an API key: `sha256:` and the lowercase hex SHA-256 of its UTF-8
 * bytes. Deterministic, so operators can compute it anywhere (`printf %s "$KEY" | sha256sum`).
 */
export function hashApiKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** Verifies presented API keys against configured digests. */
export interface ApiKeyVerifier {
  /**
   * Verifies one presented key. Pure and synchronous: the same key and configuration give the
   * same outcome; an unknown key is a refusal, never an exception.
   */
  verify(key: string): AuthOutcome;
  /** How many keys are configured (zero means API-key sign-in is off). */
  readonly size: number;
}

interface ParsedEntry {
  readonly entry: ApiKeyEntry;
  readonly digest: Buffer;
}

/**
 * Builds a verifier over the configured entries.
 *
 * @throws {AuthConfigError} when a hash is not `sha256:<64 lowercase hex>`, or two entries share
 * a hash (one key would then speak for two principals).
 */
export function createApiKeyVerifier(entries: readonly ApiKeyEntry[]): ApiKeyVerifier {
  const parsed: ParsedEntry[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const match = HASH_PATTERN.exec(entry.hash);
    if (match?.[1] === undefined) {
      throw new AuthConfigError(`API key '${entry.id}': hash must be 'sha256:' and 64 lowercase hex digits`);
    }
    if (seen.has(match[1])) throw new AuthConfigError(`API key '${entry.id}': its hash is configured twice`);
    seen.add(match[1]);
    parsed.push({ entry, digest: Buffer.from(match[1], 'hex') });
  }
  return {
    size: parsed.length,
    verify(key: string): AuthOutcome {
      if (key.length < API_KEY_MIN_LENGTH) {
        return refused(AuthRefusal.malformed_credential, `API key shorter than ${API_KEY_MIN_LENGTH} characters`);
      }
      const presented = createHash('sha256').update(key, 'utf8').digest();
      // Compare against every entry (no early exit), so timing does not depend on which one matched.
      let found: ApiKeyEntry | undefined;
      for (const candidate of parsed) {
        if (timingSafeEqual(presented, candidate.digest)) found = candidate.entry;
      }
      if (found === undefined) return refused(AuthRefusal.unknown_api_key, 'API key not configured');
      return {
        ok: true,
        principal: { id: found.id, roles: [...found.roles], scopes: [...found.scopes], via: 'api-key', expiresAtMs: undefined },
      };
    },
  };
}
