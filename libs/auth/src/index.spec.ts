// The curated index is #auth's public contract; this fails on any export change nobody reviewed.
import { describe, expect, it } from 'vitest';
import * as auth from './index.js';

describe('#auth public surface', () => {
  it('exports exactly the reviewed runtime names', () => {
    expect(Object.keys(auth).sort()).toEqual([
      'API_KEY_MIN_LENGTH',
      'ApiKeyConfigSchema',
      'AuthConfigError',
      'AuthConfigSchema',
      'AuthRefusal',
      'JwtConfigSchema',
      'Role',
      'classifyCredential',
      'createApiKeyVerifier',
      'createAuthenticator',
      'createJwtVerifier',
      'credentialFromHeaders',
      'hashApiKey',
      'isRole',
      'principalHasRole',
      'principalHasScope',
      'roleGrants',
    ]);
  });
});
