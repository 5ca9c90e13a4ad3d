// Layer 1: retention decides when a record stops being returned, so its precedence is pinned here, without a store.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION_MS } from '#core';
import { LongTermArgumentError } from '../errors.js';
import { expiresAtFor, resolveRetentionMs, validateRetentionOverrides } from './retention.js';

const DAY = 86_400_000;

describe('resolveRetentionMs', () => {
  it('uses the seed defaults: turns 30 days, episodes 90, derivations indefinite', () => {
    expect(resolveRetentionMs('turn')).toBe(30 * DAY);
    expect(resolveRetentionMs('episodic')).toBe(90 * DAY);
    for (const type of ['thread_summary', 'fact', 'user_summary', 'procedural']) expect(resolveRetentionMs(type)).toBe(0);
    expect(Object.keys(DEFAULT_RETENTION_MS)).toHaveLength(6);
  });

  it('lets an operator override a type and a write override both', () => {
    expect(resolveRetentionMs('turn', { turn: 7 * DAY })).toBe(7 * DAY);
    expect(resolveRetentionMs('fact', { fact: 365 * DAY })).toBe(365 * DAY);
    expect(resolveRetentionMs('turn', { turn: 7 * DAY }, DAY)).toBe(DAY);
    expect(resolveRetentionMs('turn', {}, 0)).toBe(0);
  });

  it('keeps operator-defined types indefinitely unless configured', () => {
    expect(resolveRetentionMs('ticket_digest')).toBe(0);
    expect(resolveRetentionMs('ticket_digest', { ticket_digest: 14 * DAY })).toBe(14 * DAY);
  });

  it('refuses bad type names and retentions', () => {
    expect(() => resolveRetentionMs('Turn')).toThrow(LongTermArgumentError);
    expect(() => resolveRetentionMs('turn', {}, -1)).toThrow(LongTermArgumentError);
    expect(() => resolveRetentionMs('turn', { turn: 1.5 })).toThrow(LongTermArgumentError);
    expect(() => validateRetentionOverrides({ 'not-a-type': DAY })).toThrow(LongTermArgumentError);
    expect(() => resolveRetentionMs('__proto__')).toThrow(LongTermArgumentError);
  });
});

describe('expiresAtFor', () => {
  it('adds the retention to the write time, and 0 stays never', () => {
    expect(expiresAtFor('turn', 1_000)).toBe(1_000 + 30 * DAY);
    expect(expiresAtFor('fact', 1_000)).toBe(0);
    expect(expiresAtFor('fact', 1_000, {}, 500)).toBe(1_500);
  });

  it('is a pure function of its inputs, so a replay stamps the identical expiry', () => {
    expect(expiresAtFor('episodic', 1_700_000_000_000, { episodic: 5 })).toBe(expiresAtFor('episodic', 1_700_000_000_000, { episodic: 5 }));
  });
});
