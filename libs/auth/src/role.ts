/**
 * The roles a principal may hold, a closed vocabulary. Roles are ordered: `operator` grants
 * everything `viewer` grants, so a check names the least role it needs and never lists both.
 * Pure: no side effects on import.
 */

/** The role vocabulary. */
export const Role = {
  /** Reads everything an operator reads (cluster, agents, keys, approvals, errors, erasures); changes nothing. */
  viewer: 'viewer',
  /** A viewer who may also act: decide approvals, request erasures, redrive errors. Every action is audited by name. */
  operator: 'operator',
} as const;

/** One member of {@link Role}. */
export type Role = (typeof Role)[keyof typeof Role];

const RANK: Readonly<Record<Role, number>> = { viewer: 1, operator: 2 };

/** True when `value` is a member of {@link Role} (the spelling is exact: `Operator` is not a role). */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/**
 * True when holding `held` grants what `needed` asks for: `operator` grants `viewer`, nothing
 * grants `operator` but `operator`.
 */
export function roleGrants(held: Role, needed: Role): boolean {
  return RANK[held] >= RANK[needed];
}
