/**
 * RFC 4122 §4.3 name-based UUIDs, version 5 (SHA-1), as lowercase hyphenated text: the one
 * formula behind every derived message id and intent id (invariant 2), minted by the `uuid`
 * package. Every activation mints at least one id and ingress one per forward, so each namespace
 * is parsed once and handed to the package as bytes, rather than re-parsed from text per call.
 *
 * Pure: no side effects beyond the cache of parsed namespaces (a handful of constants).
 */
import { parse, v5 } from 'uuid';

const namespaceBytes = new Map<string, Uint8Array>();
const utf8 = new TextEncoder();

/**
 * The uuid v5 of `name` (hashed as UTF-8) in `namespace` (a hyphenated uuid). The name is handed
 * to the package already UTF-8 encoded (the same bytes its own string path produces, by the
 * platform encoder instead of `unescape(encodeURIComponent(...))` and a loop).
 */
export function uuidV5(name: string, namespace: string): string {
  return v5(utf8.encode(name), parsedNamespace(namespace));
}

/** {@link uuidV5} as its 16 bytes (the same uuid, not its text): for ids carried as bytes, e.g. trace ids. */
export function uuidV5Bytes(name: string, namespace: string): Uint8Array {
  return v5(utf8.encode(name), parsedNamespace(namespace), new Uint8Array(16));
}

function parsedNamespace(namespace: string): Uint8Array {
  let bytes = namespaceBytes.get(namespace);
  if (bytes === undefined) {
    bytes = parse(namespace);
    namespaceBytes.set(namespace, bytes);
  }
  return bytes;
}
