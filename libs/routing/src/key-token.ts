/**
 * The key token: the ONE canonical, reversible, subject-safe encoding of an entity key. Every
 * publisher (client, ingress, effector results, approvals, timers) and every KV key built from a
 * key goes through `encodeKeyToken`, so a key has exactly one subject and one state key, and its
 * partition (`partitionOf`) is the same wherever it is computed.
 *
 * Scheme: a byte in `[A-Za-z0-9_-]` is emitted as itself; every other byte (including `=`) is
 * emitted as `=` plus two UPPERCASE hex digits. Ordinary keys stay readable (`order-123`), any
 * byte string round-trips, and the alphabet `[A-Za-z0-9_=-]` is valid both as a NATS subject token
 * (no `.`, `*`, `>`, whitespace) and inside a JetStream KV key (`[-/_=.a-zA-Z0-9]`).
 *
 * Decoding accepts only the canonical form, so two different tokens never name the same key.
 * Pure: no side effects on import.
 */
import { KeyTokenError, RoutingError } from './errors.js';

/** Default upper bound on an entity key's length in bytes (its token is at most 3× longer). */
export const DEFAULT_MAX_KEY_BYTES = 256;

/** Options for {@link validateEntityKey}. */
export interface EntityKeyLimits {
  /** The largest accepted key, in bytes. Defaults to {@link DEFAULT_MAX_KEY_BYTES}. */
  readonly maxKeyBytes?: number;
}

/** The verdict of {@link validateEntityKey}: accepted, or a human-readable problem. */
export type EntityKeyValidation = { readonly ok: true } | { readonly ok: false; readonly problem: string };

const ESCAPE = 0x3d; // '='
const HEX_DIGITS = '0123456789ABCDEF';
const TOKEN_PREVIEW_CHARS = 64;

/** byte -> its token form: the character itself when safe, `=XX` otherwise. */
const ENCODED_BYTE: readonly string[] = Array.from({ length: 256 }, (_, byte) =>
  isPlainByte(byte) ? String.fromCharCode(byte) : `=${HEX_DIGITS[byte >> 4]}${HEX_DIGITS[byte & 0x0f]}`,
);

const utf8 = new TextEncoder();

/** True for the bytes emitted as themselves: `[A-Za-z0-9_-]`. */
function isPlainByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    byte === 0x2d || // -
    byte === 0x5f // _
  );
}

/** Value of one UPPERCASE hex digit, or -1 (lowercase is not canonical). */
function upperHexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x41 && code <= 0x46) return code - 0x41 + 10;
  return -1;
}

/**
 * Encodes an entity key as its canonical key token.
 *
 * @throws {KeyTokenError} when `key` is empty (an empty subject token does not exist).
 * @example
 * ```ts
 * encodeKeyToken(keyFromText('order-123'));        // 'order-123'
 * encodeKeyToken(keyFromText('user@example.com')); // 'user=40example=2Ecom'
 * ```
 */
export function encodeKeyToken(key: Uint8Array): string {
  if (key.length === 0) throw new KeyTokenError('an empty entity key has no key token', { token: '' });
  let token = '';
  for (const byte of key) token += ENCODED_BYTE[byte];
  return token;
}

/**
 * Decodes a canonical key token back to the entity key bytes.
 *
 * @throws {KeyTokenError} for anything that {@link encodeKeyToken} would not have produced: an
 * empty token, a character outside `[A-Za-z0-9_=-]`, a truncated escape, lowercase hex, or an
 * escape of a byte that needed none (`=41` for `A`). The error's `offset` points at the culprit.
 * @example
 * ```ts
 * new TextDecoder().decode(decodeKeyToken('user=40example=2Ecom')); // 'user@example.com'
 * decodeKeyToken('user=2ecom'); // throws KeyTokenError (lowercase hex)
 * ```
 */
export function decodeKeyToken(token: string): Uint8Array {
  if (token.length === 0) throw new KeyTokenError('an empty key token names no entity key', { token, offset: 0 });
  const problem = findNonCanonical(token);
  if (problem !== undefined) {
    throw new KeyTokenError(`key token ${preview(token)} is not canonical at offset ${problem.offset}: ${problem.reason}`, {
      token,
      offset: problem.offset,
    });
  }
  const bytes = new Uint8Array(token.length - 2 * countEscapes(token));
  let written = 0;
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (code === ESCAPE) {
      bytes[written++] = (upperHexValue(token.charCodeAt(i + 1)) << 4) | upperHexValue(token.charCodeAt(i + 2));
      i += 2;
    } else {
      bytes[written++] = code;
    }
  }
  return bytes;
}

/**
 * True when `token` is exactly what {@link encodeKeyToken} produces for some non-empty key; the
 * non-throwing form of {@link decodeKeyToken}'s check, without allocating the key.
 */
export function isCanonicalKeyToken(token: string): boolean {
  return token.length > 0 && findNonCanonical(token) === undefined;
}

/**
 * The canonical bytes of a textual key — how a string key becomes an entity key: the UTF-8 bytes
 * of its Unicode NFC form, so `café` typed with a precomposed `é` (U+00E9) and with `e` + U+0301
 * is one key, whichever route (client, CLI, HTTP path, `Agents-Key` header) it came through.
 * Lone surrogates become U+FFFD (the `TextEncoder` rule), so such a string does not round-trip as
 * text. Keys given as bytes (base64) are taken as they are.
 *
 * @example
 * ```ts
 * encodeKeyToken(keyFromText('café')); // 'caf=C3=A9'
 * encodeKeyToken(keyFromText('cafe\u0301')); // 'caf=C3=A9' too
 * ```
 */
export function keyFromText(text: string): Uint8Array {
  return utf8.encode(text.normalize('NFC'));
}

/**
 * Checks an entity key against the size policy: not empty, at most `maxKeyBytes` bytes.
 * Ingress rejects a failing key with the `key_invalid` reason and the returned problem.
 *
 * @throws {RoutingError} when `limits.maxKeyBytes` is not a positive integer (a configuration bug).
 * @example
 * ```ts
 * validateEntityKey(keyFromText('order-123'));                  // { ok: true }
 * validateEntityKey(new Uint8Array(300), { maxKeyBytes: 256 }); // { ok: false, problem: 'entity key is 300 bytes; the limit is 256' }
 * ```
 */
export function validateEntityKey(key: Uint8Array, limits: EntityKeyLimits = {}): EntityKeyValidation {
  const maxKeyBytes = limits.maxKeyBytes ?? DEFAULT_MAX_KEY_BYTES;
  if (!Number.isSafeInteger(maxKeyBytes) || maxKeyBytes < 1) {
    throw new RoutingError(`maxKeyBytes must be a positive integer, got ${String(maxKeyBytes)}`);
  }
  if (key.length === 0) return { ok: false, problem: 'entity key is empty' };
  if (key.length > maxKeyBytes) {
    return { ok: false, problem: `entity key is ${key.length} bytes; the limit is ${maxKeyBytes}` };
  }
  return { ok: true };
}

/** The first reason a non-empty `token` is not canonical, or undefined. */
function findNonCanonical(token: string): { readonly offset: number; readonly reason: string } | undefined {
  for (let i = 0; i < token.length; i++) {
    const code = token.charCodeAt(i);
    if (isPlainByte(code)) continue;
    if (code !== ESCAPE) {
      return { offset: i, reason: `character ${JSON.stringify(token[i])} is outside [A-Za-z0-9_=-]` };
    }
    if (i + 2 >= token.length) return { offset: i, reason: 'escape "=" is not followed by two hex digits' };
    const high = upperHexValue(token.charCodeAt(i + 1));
    const low = upperHexValue(token.charCodeAt(i + 2));
    const escape = token.slice(i, i + 3);
    if (high < 0 || low < 0) {
      return { offset: i, reason: `escape ${JSON.stringify(escape)} is not "=" plus two UPPERCASE hex digits` };
    }
    const byte = (high << 4) | low;
    if (isPlainByte(byte)) {
      return { offset: i, reason: `escape ${JSON.stringify(escape)} encodes ${JSON.stringify(String.fromCharCode(byte))}, which is written as itself` };
    }
    i += 2;
  }
  return undefined;
}

function countEscapes(token: string): number {
  let escapes = 0;
  for (let i = 0; i < token.length; i++) if (token.charCodeAt(i) === ESCAPE) escapes++;
  return escapes;
}

function preview(token: string): string {
  return JSON.stringify(token.length > TOKEN_PREVIEW_CHARS ? `${token.slice(0, TOKEN_PREVIEW_CHARS)}…` : token);
}
