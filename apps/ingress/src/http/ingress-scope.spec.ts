import { describe, expect, it } from 'vitest';
import type { Principal } from '#auth';
import { IngestLane } from '#routing';
import { mayUseLane, requiredScope } from './ingress-scope.js';

const principal = (scopes: string[], roles: Principal['roles'] = []): Principal => ({ id: 'p', roles, scopes, via: 'api-key', expiresAtMs: undefined });

describe('ingress scopes', () => {
  it('grants a lane for one agent with the per-agent scope only', () => {
    const p = principal(['events:publish:refund']);
    expect(mayUseLane(p, IngestLane.Events, 'refund')).toBe(true);
    expect(mayUseLane(p, IngestLane.Events, 'hello')).toBe(false);
    expect(mayUseLane(p, IngestLane.Approvals, 'refund')).toBe(false);
  });

  it('grants a lane for every agent with the lane-wide scope, and everything with *', () => {
    expect(mayUseLane(principal(['approvals:decide']), IngestLane.Approvals, 'refund')).toBe(true);
    expect(mayUseLane(principal(['approvals:decide']), IngestLane.Results, 'refund')).toBe(false);
    expect(mayUseLane(principal(['*']), IngestLane.Results, 'any')).toBe(true);
  });

  it('does not take a role for a scope', () => {
    expect(mayUseLane(principal([], ['operator']), IngestLane.Approvals, 'refund')).toBe(false);
  });

  it('names the narrowest scope a refusal asks for', () => {
    expect(requiredScope(IngestLane.Results, 'refund')).toBe('results:submit:refund');
  });

  it('does not read a scope for another agent as a prefix match', () => {
    expect(mayUseLane(principal(['events:publish:ref']), IngestLane.Events, 'refund')).toBe(false);
  });
});
