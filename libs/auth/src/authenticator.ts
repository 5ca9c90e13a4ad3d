/**
 * The one entry point an edge calls: a credential in, an {@link AuthOutcome} out. It combines the
 * API-key verifier and the JWT verifier built from the `auth` configuration. Deny by default: with
 * nothing configured, every credential is refused.
 *
 * Each call verifies afresh (nothing is cached per credential), so a key removed from
 * configuration stops working as soon as the authenticator is rebuilt with the new configuration,
 * and a JWT stops at its `exp`.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Clock } from '#core';
import { ApiKeyConfigSchema, type AuthConfig } from './auth-config.js';
import { createApiKeyVerifier, type ApiKeyEntry, type ApiKeyVerifier } from './api-key.js';
import { createJwtVerifier, type JwtKeySource, type JwtVerifier } from './jwt-verifier.js';
import { AuthRefusal, refused, type AuthOutcome } from './auth-outcome.js';
import { credentialFromHeaders, type HeaderBag, type PresentedCredential } from './credential.js';
import { AuthConfigError } from './errors.js';

/** Verifies presented credentials. */
export interface Authenticator {
  /** Verifies a credential already read from a request (see `credentialFromHeaders`). Never throws. */
  authenticate(credential: PresentedCredential): Promise<AuthOutcome>;
  /** Reads and verifies the credential in request headers. Never throws. */
  authenticateHeaders(headers: HeaderBag): Promise<AuthOutcome>;
  /** Which credential kinds are configured (for start-up logs and the sign-in page). */
  readonly methods: { readonly apiKeys: number; readonly jwt: boolean };
}

/** What the authenticator reads besides its configuration. */
export interface AuthenticatorDeps {
  /** The clock JWT expiry is judged against. */
  readonly clock: Clock;
  /** Reads a configured file (JWT key, API key list); defaults to `readFileSync`. */
  readonly readFile?: (path: string) => Buffer;
}

/**
 * Builds the authenticator from the `auth` configuration, reading its files once.
 *
 * @throws {AuthConfigError} for an unreadable or invalid file, a malformed digest, a duplicate
 * digest, a short JWT secret or a bad PEM: a service fails at start-up, never at its first request.
 */
export async function createAuthenticator(config: AuthConfig, deps: AuthenticatorDeps): Promise<Authenticator> {
  const readFile = deps.readFile ?? ((path: string) => readFileSync(path));
  const entries: ApiKeyEntry[] = [...config.apiKeys];
  if (config.apiKeysFile !== undefined) entries.push(...readApiKeysFile(config.apiKeysFile, readFile));
  const apiKeys: ApiKeyVerifier = createApiKeyVerifier(entries);
  const jwt: JwtVerifier | undefined =
    config.jwt === undefined
      ? undefined
      : await createJwtVerifier(
          {
            issuer: config.jwt.issuer,
            audience: config.jwt.audience,
            rolesClaim: config.jwt.rolesClaim,
            clockToleranceSec: config.jwt.clockToleranceSec,
            key: jwtKeySource(config.jwt, readFile),
          },
          deps.clock,
        );

  const authenticate = async (credential: PresentedCredential): Promise<AuthOutcome> => {
    switch (credential.kind) {
      case 'none':
        return refused(AuthRefusal.missing_credential, 'no credential presented');
      case 'malformed':
        return refused(AuthRefusal.malformed_credential, credential.problem);
      case 'api-key':
        return apiKeys.verify(credential.key);
      case 'jwt':
        if (jwt === undefined) return refused(AuthRefusal.invalid_token, 'JWT sign-in is not configured');
        return jwt.verify(credential.token);
    }
  };
  return {
    authenticate,
    authenticateHeaders: (headers) => authenticate(credentialFromHeaders(headers)),
    methods: { apiKeys: apiKeys.size, jwt: jwt !== undefined },
  };
}

function jwtKeySource(jwt: NonNullable<AuthConfig['jwt']>, readFile: (path: string) => Buffer): JwtKeySource {
  if (jwt.secretFile !== undefined) return { kind: 'secret', secret: new Uint8Array(readConfigured(jwt.secretFile, readFile)) };
  if (jwt.publicKeyFile !== undefined) {
    return { kind: 'public-key', pem: readConfigured(jwt.publicKeyFile, readFile).toString('utf8'), algorithm: jwt.algorithm ?? '' };
  }
  if (jwt.jwksUrl !== undefined) return { kind: 'jwks', url: jwt.jwksUrl };
  throw new AuthConfigError('auth.jwt: set exactly one of secretFile, publicKeyFile, jwksUrl');
}

function readApiKeysFile(path: string, readFile: (path: string) => Buffer): ApiKeyEntry[] {
  let parsed: unknown;
  try {
    parsed = parseYaml(readConfigured(path, readFile).toString('utf8'));
  } catch (error) {
    if (error instanceof AuthConfigError) throw error;
    throw new AuthConfigError(`auth.apiKeysFile ${path}: not YAML or JSON`, { cause: error });
  }
  const result = z.array(ApiKeyConfigSchema).safeParse(parsed ?? []);
  if (!result.success) throw new AuthConfigError(`auth.apiKeysFile ${path}: ${z.prettifyError(result.error)}`);
  return result.data;
}

function readConfigured(path: string, readFile: (path: string) => Buffer): Buffer {
  try {
    return readFile(path);
  } catch (error) {
    throw new AuthConfigError(`cannot read ${path}`, { cause: error });
  }
}
