// Spans carry a digest of the key by default, never the key (issue 12, defect 7).
import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { configureKeyAttribute, keyAttribute, KeyAttributeModeError } from './key-attribute.js';

describe('keyAttribute', () => {
  afterEach(() => configureKeyAttribute({}));

  it('is a SHA-256 digest of the token by default, so a span never holds the key', () => {
    configureKeyAttribute({});
    expect(keyAttribute('order-42')).toBe(createHash('sha256').update('order-42').digest('hex').slice(0, 32));
    expect(keyAttribute('order-42')).not.toContain('order-42');
  });

  it('digests a non-ASCII token as its UTF-8 bytes, as every other service does', () => {
    configureKeyAttribute({});
    expect(keyAttribute('clé-ключ-42')).toBe(createHash('sha256').update(Buffer.from('clé-ключ-42', 'utf8')).digest('hex').slice(0, 32));
  });

  it('uses an HMAC when a salt is configured, and the token itself only when asked to', () => {
    configureKeyAttribute({ AGENTS_TRACE_KEY_SALT: 's3cret' });
    expect(keyAttribute('order-42')).toBe(createHmac('sha256', 's3cret').update('order-42').digest('hex').slice(0, 32));
    configureKeyAttribute({ AGENTS_TRACE_KEYS: 'token' });
    expect(keyAttribute('order-42')).toBe('order-42');
  });

  it('refuses an unknown mode rather than guess', () => {
    expect(() => configureKeyAttribute({ AGENTS_TRACE_KEYS: 'raw' })).toThrow(KeyAttributeModeError);
  });
});
