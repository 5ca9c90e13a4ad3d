// Layer 1: a verifying effector without a usable keyring must refuse to start (K28), and keyring
// errors must name the line, never the secret.
import { describe, expect, it } from 'vitest';
import { KeyringError } from './effector-errors.js';
import { loadKeyring, parseKeyring } from './keyring.js';

const config = (verification: 'off' | 'permissive' | 'require', signing: { keyringFile?: string; keyringEnv?: string } = {}) => ({
  signing,
  effector: { verification } as never,
});

describe('parseKeyring', () => {
  it('reads key_id=base64 lines, skipping blanks and comments', () => {
    const keys = parseKeyring(`# rotation in progress\nk1=${Buffer.from('one').toString('base64')}\n\n k2 = ${Buffer.from('two!').toString('base64')} \n`, 'ring');
    expect([...keys.keys()]).toEqual(['k1', 'k2']);
    expect(Buffer.from(keys.get('k2')!).toString()).toBe('two!');
  });

  it.each([
    ['a line without =', 'k1'],
    ['an empty key id', '=c2VjcmV0'],
    ['a secret that is not base64', 'k1=not base64!'],
    ['a duplicate key id', 'k1=c2VjcmV0\nk1=b3RoZXI='],
  ])('refuses %s, naming the line but not the secret', (_what, text) => {
    expect(() => parseKeyring(text, 'ring.txt')).toThrow(KeyringError);
    try {
      parseKeyring(text, 'ring.txt');
    } catch (error) {
      expect((error as Error).message).toMatch(/^ring\.txt line \d+/);
      expect((error as Error).message).not.toMatch(/c2VjcmV0|b3RoZXI=/);
    }
  });
});

describe('loadKeyring', () => {
  const sources = (files: Record<string, string>, env: Record<string, string> = {}) => ({
    env,
    readFile: (path: string) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
  });

  it('fails start-up in a verifying mode without a keyring', () => {
    expect(() => loadKeyring(config('require'), sources({}))).toThrow(/no keyring is configured/);
    expect(() => loadKeyring(config('permissive'), sources({}))).toThrow(KeyringError);
  });

  it('fails start-up when the keyring file is unreadable or empty, or its variable unset', () => {
    expect(() => loadKeyring(config('require', { keyringFile: '/missing' }), sources({}))).toThrow(/cannot read the keyring file \/missing/);
    expect(() => loadKeyring(config('require', { keyringFile: '/ring' }), sources({ '/ring': '# nothing yet\n' }))).toThrow(/holds no key/);
    expect(() => loadKeyring(config('require', { keyringEnv: 'RING' }), sources({}))).toThrow(/RING is not set/);
  });

  it('loads from a file or a variable', () => {
    expect(loadKeyring(config('require', { keyringFile: '/ring' }), sources({ '/ring': 'k1=c2VjcmV0' })).size).toBe(1);
    expect(loadKeyring(config('permissive', { keyringEnv: 'RING' }), sources({}, { RING: 'k1=c2VjcmV0\nk2=b3RoZXI=' })).size).toBe(2);
  });

  it('needs nothing when verification is off', () => {
    expect(loadKeyring(config('off'), sources({})).size).toBe(0);
  });
});
