// Layer 1: the effector refuses to start with a tool set it cannot run safely.
import { describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '#core';
import { EffectorConfigError } from './effector-errors.js';
import { buildToolCatalog } from './tool-catalog.js';

const charge: AnyToolDefinition = { name: 'charge', sideEffect: true, handler: () => 'ok' };
const base = { loaded: new Map([['charge', charge]]), httpToolUrl: undefined, leaseMs: 300_000, toolTimeoutMs: 60_000 };

describe('buildToolCatalog', () => {
  it('adds the built-in http tool when a URL is configured', () => {
    const tools = buildToolCatalog({ ...base, httpToolUrl: 'http://hooks.test/' });
    expect([...tools.keys()]).toEqual(['charge', 'http']);
    expect(tools.get('http')?.sideEffect).toBe(true);
  });

  it('refuses a module tool named http when the built-in one is enabled', () => {
    const loaded = new Map([['http', { ...charge, name: 'http' }]]);
    expect(() => buildToolCatalog({ ...base, loaded, httpToolUrl: 'http://hooks.test/' })).toThrow(EffectorConfigError);
  });

  it('refuses a lease that does not outlast the tool timeouts (a run could outlive its claim)', () => {
    expect(() => buildToolCatalog({ ...base, toolTimeoutMs: 300_000 })).toThrow(/leaseMs \(300000\) must be longer/);
    const slow = new Map([['charge', { ...charge, timeoutMs: 400_000 }]]);
    expect(() => buildToolCatalog({ ...base, loaded: slow })).toThrow(/timeoutMs 400000/);
  });

  it('refuses a negative or fractional retry count', () => {
    expect(() => buildToolCatalog({ ...base, loaded: new Map([['charge', { ...charge, retries: -1 }]]) })).toThrow(/retries -1/);
  });
});
