// JWT verification against real jose-signed tokens; time comes from a fixed clock, never the wall.
import { describe, expect, it } from 'vitest';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import type { Clock } from '#core';
import { createJwtVerifier } from './jwt-verifier.js';
import { AuthConfigError } from './errors.js';

const NOW_MS = Date.UTC(2026, 0, 1, 12, 0, 0);
const clock: Clock = { nowMs: () => NOW_MS, monotonicMs: () => 0 };
const SECRET = new TextEncoder().encode('a-test-secret-of-at-least-32-bytes!!');
const NOW_S = NOW_MS / 1000;

function token(claims: Record<string, unknown>, overrides: { iss?: string; aud?: string; exp?: number; alg?: string } = {}) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: overrides.alg ?? 'HS256' })
    .setIssuer(overrides.iss ?? 'https://idp.test')
    .setAudience(overrides.aud ?? 'nats-agents')
    .setIssuedAt(NOW_S - 10)
    .setExpirationTime(overrides.exp ?? NOW_S + 600);
}

const secretVerifier = () =>
  createJwtVerifier({ issuer: 'https://idp.test', audience: 'nats-agents', key: { kind: 'secret', secret: SECRET } }, clock);

describe('createJwtVerifier (shared secret)', () => {
  it('yields sub, known roles, scopes and expiry', async () => {
    const jwt = await token({ sub: 'alice@example.com', roles: ['operator', 'superuser'], scope: 'approvals:decide results:submit' }).sign(SECRET);
    expect(await (await secretVerifier()).verify(jwt)).toEqual({
      ok: true,
      principal: {
        id: 'alice@example.com',
        roles: ['operator'],
        scopes: ['approvals:decide', 'results:submit'],
        via: 'jwt',
        expiresAtMs: NOW_MS + 600_000,
      },
    });
  });

  it('reads roles from a space-separated string, a configured claim and scp arrays', async () => {
    const verifier = await createJwtVerifier(
      { issuer: 'https://idp.test', audience: 'nats-agents', key: { kind: 'secret', secret: SECRET }, rolesClaim: 'groups' },
      clock,
    );
    const jwt = await token({ sub: 'bob', groups: 'viewer', scp: ['a', 'b'] }).sign(SECRET);
    expect(await verifier.verify(jwt)).toMatchObject({ ok: true, principal: { roles: ['viewer'], scopes: ['a', 'b'] } });
  });

  it('refuses an expired token as expired, judged by the injected clock', async () => {
    const jwt = await token({ sub: 'alice' }, { exp: NOW_S - 120 }).sign(SECRET);
    expect(await (await secretVerifier()).verify(jwt)).toMatchObject({ ok: false, reason: 'expired_token' });
  });

  it('refuses a wrong issuer, a wrong audience, a wrong signature and a missing sub', async () => {
    const verifier = await secretVerifier();
    const other = new TextEncoder().encode('another-secret-of-at-least-32-bytes!');
    const cases = [
      await token({ sub: 'a' }, { iss: 'https://evil.test' }).sign(SECRET),
      await token({ sub: 'a' }, { aud: 'someone-else' }).sign(SECRET),
      await token({ sub: 'a' }).sign(other),
      await token({}).sign(SECRET),
      'not.a.jwt',
    ];
    for (const jwt of cases) expect(await verifier.verify(jwt)).toMatchObject({ ok: false, reason: 'invalid_token' });
  });

  it('refuses a short secret at construction', async () => {
    await expect(
      createJwtVerifier({ issuer: 'i', audience: 'a', key: { kind: 'secret', secret: new Uint8Array(8) } }, clock),
    ).rejects.toThrow(AuthConfigError);
  });
});

describe('createJwtVerifier (public key)', () => {
  it('verifies ES256 with a PEM key and refuses an HMAC token signed with that PEM as the secret', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const pem = await exportSPKI(publicKey);
    const verifier = await createJwtVerifier(
      { issuer: 'https://idp.test', audience: 'nats-agents', key: { kind: 'public-key', pem, algorithm: 'ES256' } },
      clock,
    );
    const good = await token({ sub: 'carol', roles: 'viewer' }, { alg: 'ES256' }).sign(privateKey);
    expect(await verifier.verify(good)).toMatchObject({ ok: true, principal: { id: 'carol', roles: ['viewer'] } });
    const confused = await token({ sub: 'mallory', roles: 'operator' }).sign(new TextEncoder().encode(pem));
    expect(await verifier.verify(confused)).toMatchObject({ ok: false, reason: 'invalid_token' });
  });

  it('refuses a PEM that does not parse and an algorithm outside the family', async () => {
    await expect(
      createJwtVerifier({ issuer: 'i', audience: 'a', key: { kind: 'public-key', pem: 'nope', algorithm: 'ES256' } }, clock),
    ).rejects.toThrow(AuthConfigError);
    await expect(
      createJwtVerifier({ issuer: 'i', audience: 'a', key: { kind: 'public-key', pem: 'nope', algorithm: 'HS256' } }, clock),
    ).rejects.toThrow(/subset/);
  });
});
