// The key token is a wire and storage contract: pinned here as pure functions, byte for byte, before any broker sees it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyTokenError, RoutingError } from './errors.js';
import {
  DEFAULT_MAX_KEY_BYTES,
  decodeKeyToken,
  encodeKeyToken,
  isCanonicalKeyToken,
  keyFromText,
  validateEntityKey,
} from './key-token.js';

/** A NATS subject token: non-empty, no `.`, no wildcard, no whitespace. */
const SUBJECT_TOKEN = /^[^\s.*>]+$/;
/** A JetStream KV key (@nats-io/kv `validKeyRe`; it also may not start or end with `.`). */
const KV_KEY = /^[-/=.\w]+$/;

const anyKey = fc.uint8Array({ minLength: 1, maxLength: 300 });

/** Fragments that assemble into tokens: mostly plausible, often subtly non-canonical. */
const tokenFragment = fc.oneof(
  fc.constantFrom(...'aZ09_-'.split('')),
  fc
    .tuple(fc.constantFrom(...'0123456789ABCDEFabcdefG'.split('')), fc.constantFrom(...'0123456789ABCDEFabcdefG'.split('')))
    .map(([high, low]) => `=${high}${low}`),
  fc.constantFrom('=', '.', ' ', '*', '>', '/', 'é', '\u0000'),
);
const tokenCandidate = fc.array(tokenFragment, { minLength: 0, maxLength: 24 }).map((parts) => parts.join(''));

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected the action to throw');
}

describe('encodeKeyToken', () => {
  it.each([
    ['order-123', 'order-123'],
    ['user@example.com', 'user=40example=2Ecom'],
    ['Snake_Case-09', 'Snake_Case-09'],
    ['=', '=3D'],
    ['a.b', 'a=2Eb'],
    ['*', '=2A'],
    ['>', '=3E'],
    ['two words', 'two=20words'],
    ['café', 'caf=C3=A9'],
    ['a/b', 'a=2Fb'],
  ])('encodes %j as %j', (text, token) => {
    expect(encodeKeyToken(keyFromText(text))).toBe(token);
  });

  it('escapes arbitrary binary bytes with uppercase hex', () => {
    expect(encodeKeyToken(Uint8Array.of(0x00, 0xff, 0x0a, 0x7f))).toBe('=00=FF=0A=7F');
  });

  it('refuses an empty key, which has no subject token', () => {
    expect(thrownBy(() => encodeKeyToken(new Uint8Array()))).toBeInstanceOf(KeyTokenError);
  });

  it('encodes a view into a larger buffer by its own bytes only', () => {
    const buffer = Uint8Array.of(0x2e, 0x61, 0x62, 0x2e);
    expect(encodeKeyToken(buffer.subarray(1, 3))).toBe('ab');
  });

  it('produces tokens that are valid NATS subject tokens and KV key segments for any bytes', () => {
    fc.assert(
      fc.property(anyKey, (key) => {
        const token = encodeKeyToken(key);
        expect(token).toMatch(SUBJECT_TOKEN);
        expect(token).toMatch(KV_KEY);
        expect(token).toMatch(/^[A-Za-z0-9_=-]+$/);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('decodeKeyToken', () => {
  it('round-trips every byte string: decode(encode(k)) equals k', () => {
    fc.assert(
      fc.property(anyKey, (key) => {
        expect(decodeKeyToken(encodeKeyToken(key))).toEqual(key);
      }),
      { numRuns: 2_000 },
    );
  });

  it('round-trips every accepted token: encode(decode(t)) equals t, and rejects the rest with KeyTokenError', () => {
    let accepted = 0;
    fc.assert(
      fc.property(tokenCandidate, (token) => {
        let key: Uint8Array;
        try {
          key = decodeKeyToken(token);
        } catch (error) {
          expect(error).toBeInstanceOf(KeyTokenError);
          expect(isCanonicalKeyToken(token)).toBe(false);
          return;
        }
        accepted++;
        expect(isCanonicalKeyToken(token)).toBe(true);
        expect(encodeKeyToken(key)).toBe(token);
      }),
      { numRuns: 5_000 },
    );
    // The generator must actually reach the accepting branch, or the property proves nothing.
    expect(accepted).toBeGreaterThan(100);
  });

  it('decodes a readable token to its text', () => {
    expect(new TextDecoder().decode(decodeKeyToken('user=40example=2Ecom'))).toBe('user@example.com');
  });

  it.each([
    ['', 0, 'empty'],
    ['user=2ecom', 4, 'lowercase hex'],
    ['ab=4', 2, 'truncated escape'],
    ['ab=', 2, 'dangling escape character'],
    ['=G1', 0, 'non-hex digit'],
    ['=41', 0, 'escape of a letter'],
    ['x=2D', 1, 'escape of "-"'],
    ['=5F', 0, 'escape of "_"'],
    ['=30', 0, 'escape of a digit'],
    ['a.b', 1, '"."'],
    ['a b', 1, 'space'],
    ['a*', 1, 'wildcard'],
    ['caf\u00e9', 3, 'raw non-ASCII'],
    ['a/b', 1, '"/" (KV-legal but outside the alphabet)'],
  ])('rejects %j at offset %i (%s)', (token, offset) => {
    const error = thrownBy(() => decodeKeyToken(token));
    expect(error).toBeInstanceOf(KeyTokenError);
    expect(error).toBeInstanceOf(RoutingError);
    expect((error as KeyTokenError).offset).toBe(offset);
    expect((error as KeyTokenError).token).toBe(token);
  });

  it('names the offending escape in the message', () => {
    expect(() => decodeKeyToken('user=2ecom')).toThrow(/"=2e"/);
  });
});

describe('keyFromText', () => {
  it('is the UTF-8 encoding of the text', () => {
    expect(Array.from(keyFromText('é€'))).toEqual([0xc3, 0xa9, 0xe2, 0x82, 0xac]);
  });

  it('makes one key of the composed and decomposed spellings of the same text (NFC)', () => {
    expect(encodeKeyToken(keyFromText('cafe\u0301'))).toBe('caf=C3=A9');
    expect(encodeKeyToken(keyFromText('café'))).toBe('caf=C3=A9');
  });
});

describe('validateEntityKey', () => {
  it('accepts a key of exactly the default limit', () => {
    expect(validateEntityKey(new Uint8Array(DEFAULT_MAX_KEY_BYTES))).toEqual({ ok: true });
    expect(DEFAULT_MAX_KEY_BYTES).toBe(256);
  });

  it('rejects a key one byte over the default limit, naming both sizes', () => {
    expect(validateEntityKey(new Uint8Array(257))).toEqual({ ok: false, problem: 'entity key is 257 bytes; the limit is 256' });
  });

  it('rejects an empty key', () => {
    expect(validateEntityKey(new Uint8Array())).toEqual({ ok: false, problem: 'entity key is empty' });
  });

  it('honours a configured limit', () => {
    expect(validateEntityKey(new Uint8Array(5), { maxKeyBytes: 4 }).ok).toBe(false);
    expect(validateEntityKey(new Uint8Array(4), { maxKeyBytes: 4 }).ok).toBe(true);
  });

  it.each([0, -1, 1.5, Number.NaN])('throws a RoutingError for a configured limit of %d', (maxKeyBytes) => {
    expect(() => validateEntityKey(new Uint8Array(1), { maxKeyBytes })).toThrow(RoutingError);
  });
});
