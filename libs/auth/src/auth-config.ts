/**
 * The `auth` section of the runtime configuration, shared by every HTTP edge (the console, and
 * ingress's authenticated routes). Only digests and file paths live here: API keys are configured
 * by their SHA-256 digest, and JWT secrets or public keys are read from files mounted from a
 * Secret. Nothing in this section is secret, so it can sit in a ConfigMap.
 */
import { z } from 'zod';
import { Role } from './role.js';

const roleSchema = z.enum([Role.viewer, Role.operator]);

/** One configured API key (see `hashApiKey`). */
export const ApiKeyConfigSchema = z.strictObject({
  /** The principal's name in audit lines. Two entries may share it (rotation). */
  id: z.string().min(1).max(128),
  /** `sha256:` and the 64 lowercase hex digits of the key's SHA-256. */
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be 'sha256:' and 64 lowercase hex digits"),
  /** Roles of the key's holder. */
  roles: z.array(roleSchema).default([]),
  /** Scopes of the key's holder (for machine callers of an edge). */
  scopes: z.array(z.string().min(1)).default([]),
});

/** JWT bearer tokens: issuer, audience and exactly one key source. */
export const JwtConfigSchema = z
  .strictObject({
    /** The required `iss`. */
    issuer: z.string().min(1),
    /** The required `aud`. */
    audience: z.string().min(1),
    /** File holding an HMAC secret (raw bytes, at least 32), mounted from a Secret. */
    secretFile: z.string().min(1).optional(),
    /** File holding an SPKI PEM public key. */
    publicKeyFile: z.string().min(1).optional(),
    /** The public key's algorithm (RS256, ES256, EdDSA, …); required with `publicKeyFile`. */
    algorithm: z.string().min(1).optional(),
    /** URL of the issuer's JSON Web Key Set. */
    jwksUrl: z.url().optional(),
    /** The claim holding the roles. */
    rolesClaim: z.string().min(1).default('roles'),
    /** Accepted clock skew in seconds. */
    clockToleranceSec: z.number().int().min(0).max(300).default(30),
  })
  .refine((jwt) => [jwt.secretFile, jwt.publicKeyFile, jwt.jwksUrl].filter((v) => v !== undefined).length === 1, {
    message: 'set exactly one of secretFile, publicKeyFile, jwksUrl',
  })
  .refine((jwt) => jwt.publicKeyFile === undefined || jwt.algorithm !== undefined, {
    message: 'publicKeyFile needs algorithm',
    path: ['algorithm'],
  });

/** Credentials accepted by the HTTP edges. With neither keys nor JWT configured, every request is refused (deny by default). */
export const AuthConfigSchema = z.strictObject({
  /** API keys, by digest. */
  apiKeys: z.array(ApiKeyConfigSchema).default([]),
  /** A YAML or JSON file holding more API key entries (same shape), mounted from a Secret. */
  apiKeysFile: z.string().min(1).optional(),
  /** JWT bearer tokens. */
  jwt: JwtConfigSchema.optional(),
});

/** The validated `auth` section. */
export type AuthConfig = z.infer<typeof AuthConfigSchema>;
/** The `auth` section as written. */
export type AuthConfigInput = z.input<typeof AuthConfigSchema>;
