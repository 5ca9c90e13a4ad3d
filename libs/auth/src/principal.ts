/**
 * Who a verified credential speaks for. A principal exists only after verification, so holding
 * one is proof that the credential was valid at the moment it was checked; it is never stored,
 * and every request is verified again (a revoked key stops working on its next request).
 */
import { roleGrants, type Role } from './role.js';

/** How the principal proved itself. */
export type CredentialKind = 'api-key' | 'jwt';

/** A verified caller. */
export interface Principal {
  /**
   * The caller's stable name, written into audit lines and approval decisions: an API key's
   * configured `id`, or a JWT's `sub` claim. Never the secret itself.
   */
  readonly id: string;
  /** The roles granted (unknown role names in a token are dropped, never guessed at). */
  readonly roles: readonly Role[];
  /**
   * Finer grants for machine callers (for example `events:publish:refund`,
   * `approvals:decide`); their meaning belongs to the edge that checks them.
   */
  readonly scopes: readonly string[];
  /** The kind of credential that was verified. */
  readonly via: CredentialKind;
  /**
   * When the credential stops being valid, in epoch milliseconds: a JWT's `exp`; `undefined`
   * for an API key (valid until removed from configuration).
   */
  readonly expiresAtMs: number | undefined;
}

/** True when any of the principal's roles grants `needed` (operator grants viewer). */
export function principalHasRole(principal: Principal, needed: Role): boolean {
  return principal.roles.some((held) => roleGrants(held, needed));
}

/** True when the principal holds `scope` exactly, or the wildcard `*`. */
export function principalHasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes('*');
}
