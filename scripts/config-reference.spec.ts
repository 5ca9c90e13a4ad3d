// Layer 1: the configuration reference is generated from the schema and checked in; this fails
// when a key, its comment, its default or its environment variable changed without
// `npm run docs:config`.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectKeys, renderConfigReference } from './config-reference.js';

const schemaSource = readFileSync(new URL('../libs/config/src/runtime-config.ts', import.meta.url), 'utf8');

describe('the configuration reference', () => {
  it('documents every key of the schema, each with a description', () => {
    const keys = collectKeys(schemaSource);
    expect(keys.map((k) => k.path)).toEqual(expect.arrayContaining(['nats.url', 'partitions', 'activator.leaseTtlMs', 'longterm.uri', 'effector.verification']));
    expect(keys.filter((k) => k.description === '').map((k) => k.path)).toEqual([]);
  });

  it('is up to date in docs/configuration.md (run `npm run docs:config`)', () => {
    expect(readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8')).toBe(renderConfigReference(schemaSource));
  });
});
