/**
 * Hex text of byte arrays (digests, entity keys, derived ids), written and read in JavaScript: the
 * one hex mechanism of libs/core.
 *
 * Why not `Buffer.from(bytes.buffer, …).toString('hex')` or `hash(…, 'buffer')`: a typed array of
 * at most 64 bytes lives on V8's heap, and asking for its `.buffer` moves it to a fresh off-heap
 * ArrayBuffer; a native `Buffer` result is one too. On Node 20 each such allocation costs about
 * 1–3 µs, several times the loop here, and a model call made two of them. Pure functions: nothing
 * to redo on redelivery, replay or after a crash.
 */

const HEX_DIGITS: readonly string[] = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hex of `bytes`, two digits per byte. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 1) out += HEX_DIGITS[bytes[i] as number] as string;
  return out;
}

/**
 * The bytes of `hex`, lowercase or uppercase, of even length; for text this process wrote (a
 * digest from `hash(…, 'hex')`). Throws a TypeError on anything else rather than decode garbage.
 */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0) throw new TypeError(`hex text must have an even length, got ${hex.length}`);
  const out = new Uint8Array(hex.length >>> 1);
  for (let i = 0; i < out.length; i += 1) out[i] = (nibble(hex, 2 * i) << 4) | nibble(hex, 2 * i + 1);
  return out;
}

function nibble(hex: string, at: number): number {
  const code = hex.charCodeAt(at);
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  if (code >= 97 && code <= 102) return code - 87; // a-f
  if (code >= 65 && code <= 70) return code - 55; // A-F
  throw new TypeError(`not a hex digit at ${at}: ${JSON.stringify(hex[at])}`);
}
