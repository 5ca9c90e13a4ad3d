import { canonicalize } from 'json-canonicalize';

/** A JSON value as the runtime hashes and stores it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Raised for values canonical JSON cannot represent (NaN, Infinity, bigint, functions, cycles). */
export class CanonicalJsonError extends TypeError {
  override readonly name = 'CanonicalJsonError';
}

/**
 * RFC 8785 canonical JSON: sorted keys, no whitespace, ECMAScript number formatting, Unicode
 * kept as is. Used wherever bytes must be a pure function of a value (cache keys, intent
 * arguments, JSON outputs), so insertion order never changes an id. Values JSON cannot carry
 * are refused rather than silently turned into `null`.
 */
export function canonicalJson(value: unknown): string {
  // JSON has no text for a bare undefined; the serializer would return the string "undefined".
  if (value === undefined) throw new CanonicalJsonError('undefined is not JSON');
  rejectNonData(value, 0);
  try {
    return canonicalize(value);
  } catch (error) {
    throw new CanonicalJsonError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function rejectNonData(value: unknown, depth: number): void {
  if (depth > 256) throw new CanonicalJsonError('value nests deeper than 256 levels');
  if (typeof value === 'function' || typeof value === 'symbol') throw new CanonicalJsonError(`${typeof value} is not JSON`);
  if (typeof value !== 'object' || value === null) return;
  for (const item of Array.isArray(value) ? value : Object.values(value)) rejectNonData(item, depth + 1);
}
