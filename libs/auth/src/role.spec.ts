// Roles are ordered; a check names the least role it needs.
import { describe, expect, it } from 'vitest';
import { isRole, roleGrants } from './role.js';
import { principalHasRole, principalHasScope, type Principal } from './principal.js';

const principal = (roles: Principal['roles'], scopes: string[] = []): Principal => ({
  id: 'p',
  roles,
  scopes,
  via: 'api-key',
  expiresAtMs: undefined,
});

describe('roles', () => {
  it('operator grants viewer; viewer does not grant operator', () => {
    expect(roleGrants('operator', 'viewer')).toBe(true);
    expect(roleGrants('viewer', 'operator')).toBe(false);
    expect(principalHasRole(principal(['viewer']), 'operator')).toBe(false);
    expect(principalHasRole(principal(['operator']), 'viewer')).toBe(true);
    expect(principalHasRole(principal([]), 'viewer')).toBe(false);
  });

  it('knows only the exact spellings', () => {
    expect(['viewer', 'operator', 'Operator', 'admin', 7].map(isRole)).toEqual([true, true, false, false, false]);
  });

  it('scopes match exactly or through *', () => {
    expect(principalHasScope(principal([], ['approvals:decide']), 'approvals:decide')).toBe(true);
    expect(principalHasScope(principal([], ['approvals:decide']), 'results:submit')).toBe(false);
    expect(principalHasScope(principal([], ['*']), 'results:submit')).toBe(true);
  });
});
