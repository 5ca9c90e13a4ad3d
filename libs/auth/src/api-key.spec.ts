// API keys are checked by digest alone; these pin the digest format and the verdicts an edge maps to 401.
import { describe, expect, it } from 'vitest';
import { createApiKeyVerifier, hashApiKey } from './api-key.js';
import { AuthConfigError } from './errors.js';

const KEY = 'k_3q2-8hT0vXa91LmQ0pZyW7sRfB';
const OTHER = 'k_different-but-long-enough-0001';

describe('hashApiKey', () => {
  it('is sha256: and the lowercase hex digest of the UTF-8 key (what sha256sum prints)', () => {
    expect(hashApiKey('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('createApiKeyVerifier', () => {
  const verifier = createApiKeyVerifier([
    { id: 'ops-alice', hash: hashApiKey(KEY), roles: ['operator'], scopes: [] },
    { id: 'billing', hash: hashApiKey(OTHER), roles: [], scopes: ['events:publish:refund'] },
  ]);

  it('yields the configured principal for a configured key', () => {
    expect(verifier.verify(KEY)).toEqual({
      ok: true,
      principal: { id: 'ops-alice', roles: ['operator'], scopes: [], via: 'api-key', expiresAtMs: undefined },
    });
    const billing = verifier.verify(OTHER);
    expect(billing.ok && billing.principal.scopes).toEqual(['events:publish:refund']);
  });

  it('refuses an unknown key without repeating it in the detail', () => {
    const outcome = verifier.verify(`${KEY}x`);
    expect(outcome).toEqual({ ok: false, reason: 'unknown_api_key', detail: 'API key not configured' });
  });

  it('refuses a key too short to be random as malformed', () => {
    expect(verifier.verify('short')).toMatchObject({ ok: false, reason: 'malformed_credential' });
  });

  it('refuses everything when no key is configured (deny by default)', () => {
    const empty = createApiKeyVerifier([]);
    expect(empty.size).toBe(0);
    expect(empty.verify(KEY)).toMatchObject({ ok: false, reason: 'unknown_api_key' });
  });

  it('accepts two digests under one id, so a key rotates with no downtime', () => {
    const rotating = createApiKeyVerifier([
      { id: 'svc', hash: hashApiKey(KEY), roles: ['viewer'], scopes: [] },
      { id: 'svc', hash: hashApiKey(OTHER), roles: ['viewer'], scopes: [] },
    ]);
    expect(rotating.verify(KEY)).toMatchObject({ ok: true, principal: { id: 'svc' } });
    expect(rotating.verify(OTHER)).toMatchObject({ ok: true, principal: { id: 'svc' } });
  });

  it('fails at construction on a malformed or duplicated digest', () => {
    expect(() => createApiKeyVerifier([{ id: 'a', hash: 'md5:abc', roles: [], scopes: [] }])).toThrow(AuthConfigError);
    expect(() =>
      createApiKeyVerifier([
        { id: 'a', hash: hashApiKey(KEY), roles: [], scopes: [] },
        { id: 'b', hash: hashApiKey(KEY), roles: [], scopes: [] },
      ]),
    ).toThrow(/configured twice/);
  });
});
