// Layer 1: tools get secrets by reference only; failures name the reference and never a value.
import { describe, expect, it } from 'vitest';
import { SecretReferenceError } from './effector-errors.js';
import { createSecretResolver } from './secret-resolver.js';

const resolve = createSecretResolver({
  env: { API_KEY: 's3cr3t' },
  readFile: (path) => {
    if (path === '/run/secrets/token') return 'file-secret\n';
    throw Object.assign(new Error(`ENOENT: no such file ${path}`), { code: 'ENOENT' });
  },
});

describe('createSecretResolver', () => {
  it('resolves env: and file: references (dropping one trailing newline)', () => {
    expect(resolve('env:API_KEY')).toBe('s3cr3t');
    expect(resolve('file:/run/secrets/token')).toBe('file-secret');
  });

  it('refuses unset variables, unreadable files and unknown schemes', () => {
    expect(() => resolve('env:MISSING')).toThrow(SecretReferenceError);
    expect(() => resolve('file:/nope')).toThrow(/secret file:\/nope does not resolve: ENOENT/);
    expect(() => resolve('vault:kv/x')).toThrow(SecretReferenceError);
  });

  it('never echoes what was passed without a scheme (it may be a value passed by mistake)', () => {
    expect(() => resolve('sk-live-abcdef')).toThrow(/neither scheme/);
    try {
      resolve('sk-live-abcdef');
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-live');
    }
  });
});
