/**
 * @packageDocumentation
 * Authentication for the HTTP edges (the console, ingress): API keys verified against configured
 * SHA-256 digests, and JWT bearer tokens verified with `jose` against a secret, a public key or a
 * JWKS URL. A verified credential yields a {@link Principal} (id, roles, scopes); a refused one
 * yields a closed {@link AuthRefusal}. Deny by default. Verification never throws; only a bad
 * configuration does, at start-up. No Nest, no NATS, no environment; time is injected.
 * See docs/auth.md.
 */

// roles and principals
export { Role, isRole, roleGrants } from './role.js';
export { principalHasRole, principalHasScope } from './principal.js';
export type { Principal, CredentialKind } from './principal.js';

// outcomes
export { AuthRefusal } from './auth-outcome.js';
export type { AuthOutcome } from './auth-outcome.js';

// reading a credential from a request
export { credentialFromHeaders, classifyCredential } from './credential.js';
export type { PresentedCredential, HeaderBag } from './credential.js';

// verifiers
export { hashApiKey, createApiKeyVerifier, API_KEY_MIN_LENGTH } from './api-key.js';
export type { ApiKeyEntry, ApiKeyVerifier } from './api-key.js';
export { createJwtVerifier } from './jwt-verifier.js';
export type { JwtVerifier, JwtVerifierOptions, JwtKeySource } from './jwt-verifier.js';
export { createAuthenticator } from './authenticator.js';
export type { Authenticator, AuthenticatorDeps } from './authenticator.js';

// configuration
export { AuthConfigSchema, ApiKeyConfigSchema, JwtConfigSchema } from './auth-config.js';
export type { AuthConfig, AuthConfigInput } from './auth-config.js';

// errors
export { AuthConfigError } from './errors.js';
