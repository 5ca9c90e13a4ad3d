/**
 * RFC 4122 §4.3 name-based UUIDs, version 5 (SHA-1), as lowercase hyphenated text: the one
 * formula behind every derived message id and intent id (invariant 2). Byte for byte what the
 * `uuid` package's `v5` mints (its spec checks that over arbitrary names in every namespace),
 * which also parses the namespaces.
 *
 * Why not the package's `v5` itself: every activation mints several ids (a round trip's activations
 * mint an intent id, a trace id and message ids) and ingress one per forward, and the package's path
 * (a hash object per id, the digest copied into a byte array, then formatted) cost 6–7 µs per id
 * against 1.6–2.1 µs for one `crypto.hash` over a reused buffer, read as hex (an ad-hoc
 * micro-benchmark of 300,000 ids, not kept).
 *
 * Pure: no side effects beyond the cache of parsed namespaces (a handful of constants) and a
 * scratch buffer that is only used synchronously within one call.
 */
import { hash } from 'node:crypto';
import { parse } from 'uuid';
import { fromHex } from './hex-bytes.js';

const namespaceBytes = new Map<string, Buffer>();
/** Namespace bytes then the name's UTF-8 bytes, rewritten by every call (synchronous, so never shared). */
const scratch = Buffer.allocUnsafe(4_096);
/** The longest name (in UTF-16 code units) whose UTF-8 bytes surely fit after a namespace. */
const SCRATCH_NAME_UNITS = Math.floor((scratch.length - 16) / 3);

/** The uuid v5 of `name` (hashed as UTF-8) in `namespace` (a hyphenated uuid). */
export function uuidV5(name: string, namespace: string): string {
  const hex = sha1Hex(name, namespace);
  // Version 5 in the high nibble of byte 6, RFC 4122 variant (10xx) in the high bits of byte 8.
  const variant = ((Number.parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** {@link uuidV5} as its 16 bytes (the same uuid, not its text): for ids carried as bytes, e.g. trace ids. */
export function uuidV5Bytes(name: string, namespace: string): Uint8Array {
  const bytes = fromHex(sha1Hex(name, namespace).slice(0, 32));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes;
}

/** SHA-1 over the namespace's 16 bytes followed by `name` as UTF-8, as 40 hex digits. */
function sha1Hex(name: string, namespace: string): string {
  const ns = parsedNamespace(namespace);
  if (name.length > SCRATCH_NAME_UNITS) return hash('sha1', Buffer.concat([ns, Buffer.from(name, 'utf8')]), 'hex');
  ns.copy(scratch, 0);
  const written = scratch.write(name, 16, 'utf8');
  return hash('sha1', scratch.subarray(0, 16 + written), 'hex');
}

function parsedNamespace(namespace: string): Buffer {
  let bytes = namespaceBytes.get(namespace);
  if (bytes === undefined) {
    bytes = Buffer.from(parse(namespace));
    namespaceBytes.set(namespace, bytes);
  }
  return bytes;
}
