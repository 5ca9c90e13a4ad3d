// The authenticator wires configuration to the verifiers; files come through an injected reader.
import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import type { Clock } from '#core';
import { createAuthenticator } from './authenticator.js';
import { AuthConfigSchema } from './auth-config.js';
import { hashApiKey } from './api-key.js';
import { AuthConfigError } from './errors.js';

const NOW_MS = Date.UTC(2026, 0, 1);
const clock: Clock = { nowMs: () => NOW_MS, monotonicMs: () => 0 };
const SECRET = 'a-test-secret-of-at-least-32-bytes!!';
const VIEWER_KEY = 'k_viewer-0123456789abcdefghij';
const FILE_KEY = 'k_from-file-0123456789abcdefgh';

const files: Record<string, string> = {
  '/secrets/jwt': SECRET,
  '/secrets/keys.yaml': `- id: from-file\n  hash: ${hashApiKey(FILE_KEY)}\n  roles: [operator]\n`,
  '/secrets/bad.yaml': '- id: x\n  hash: nope\n',
};
const readFile = (path: string): Buffer => {
  const text = files[path];
  if (text === undefined) throw new Error(`ENOENT ${path}`);
  return Buffer.from(text);
};

describe('createAuthenticator', () => {
  it('denies every credential when nothing is configured', async () => {
    const auth = await createAuthenticator(AuthConfigSchema.parse({}), { clock, readFile });
    expect(auth.methods).toEqual({ apiKeys: 0, jwt: false });
    expect(await auth.authenticateHeaders({})).toMatchObject({ ok: false, reason: 'missing_credential' });
    expect(await auth.authenticateHeaders({ 'x-api-key': VIEWER_KEY })).toMatchObject({ ok: false, reason: 'unknown_api_key' });
    expect(await auth.authenticateHeaders({ authorization: 'Bearer a.b.c' })).toMatchObject({ ok: false, reason: 'invalid_token' });
  });

  it('accepts keys from config and from the keys file, and JWTs signed with the secret file', async () => {
    const config = AuthConfigSchema.parse({
      apiKeys: [{ id: 'viewer-1', hash: hashApiKey(VIEWER_KEY), roles: ['viewer'] }],
      apiKeysFile: '/secrets/keys.yaml',
      jwt: { issuer: 'idp', audience: 'console', secretFile: '/secrets/jwt' },
    });
    const auth = await createAuthenticator(config, { clock, readFile });
    expect(auth.methods).toEqual({ apiKeys: 2, jwt: true });
    expect(await auth.authenticateHeaders({ 'x-api-key': VIEWER_KEY })).toMatchObject({ ok: true, principal: { id: 'viewer-1' } });
    expect(await auth.authenticateHeaders({ authorization: `Bearer ${FILE_KEY}` })).toMatchObject({
      ok: true,
      principal: { id: 'from-file', roles: ['operator'] },
    });
    const jwt = await new SignJWT({ roles: ['operator'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('dana')
      .setIssuer('idp')
      .setAudience('console')
      .setExpirationTime(NOW_MS / 1000 + 60)
      .sign(new TextEncoder().encode(SECRET));
    expect(await auth.authenticateHeaders({ authorization: `Bearer ${jwt}` })).toMatchObject({
      ok: true,
      principal: { id: 'dana', via: 'jwt' },
    });
  });

  it('fails at start-up on an unreadable or invalid file', async () => {
    await expect(
      createAuthenticator(AuthConfigSchema.parse({ apiKeysFile: '/secrets/missing' }), { clock, readFile }),
    ).rejects.toThrow(AuthConfigError);
    await expect(
      createAuthenticator(AuthConfigSchema.parse({ apiKeysFile: '/secrets/bad.yaml' }), { clock, readFile }),
    ).rejects.toThrow(/bad\.yaml/);
  });

  it('the schema wants exactly one JWT key source', () => {
    expect(AuthConfigSchema.safeParse({ jwt: { issuer: 'i', audience: 'a' } }).success).toBe(false);
    expect(
      AuthConfigSchema.safeParse({ jwt: { issuer: 'i', audience: 'a', secretFile: '/s', jwksUrl: 'https://idp/jwks' } }).success,
    ).toBe(false);
  });
});
