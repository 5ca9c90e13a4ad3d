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
 *
 * The text is byte for byte what `json-canonicalize` 3.0.1's `canonicalize` writes for every value
 * it accepts (a spec holds the two to each other), so cache keys and derived ids did not move when
 * this replaced it (decision 0078): undefined members are dropped, undefined array items written
 * as `null`, array holes skipped, and an object with a `toJSON` written as `JSON.stringify` writes
 * it. Why not the library: it builds a path string per member and item and a closure per object
 * for its error messages, about 5 KB of garbage for a one-message model request, and every model
 * call canonicalizes its request (the replay-cache key). This walk allocates the text and each
 * object's key list, sorted in place.
 */
export function canonicalJson(value: unknown): string {
  // JSON has no text for a bare undefined; the serializer would return the string "undefined".
  if (value === undefined) throw new CanonicalJsonError('undefined is not JSON');
  try {
    return write(value, 0);
  } catch (error) {
    if (error instanceof CanonicalJsonError) throw error;
    throw new CanonicalJsonError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** Deeper than this is refused: a cycle or absurd nesting, either way not data. */
const MAX_DEPTH = 256;

function write(value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new CanonicalJsonError(`value nests deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'function' || typeof value === 'symbol') throw new CanonicalJsonError(`${typeof value} is not JSON`);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CanonicalJsonError(`Non-finite number (${value}) is not permitted in JSON (RFC 8785 §3.2.2.3)`);
    return JSON.stringify(value);
  }
  // Strings, booleans, null; a bigint throws (JSON.stringify's TypeError, made a CanonicalJsonError above).
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string;
  const record = value as Record<string, unknown>;
  if (record.toJSON !== undefined && record.toJSON !== null) {
    // Written as JSON.stringify writes it, but its members are still checked: a function or symbol anywhere is refused.
    for (const member of Object.values(record)) if (member !== undefined) write(member, depth + 1);
    return JSON.stringify(value) as string;
  }
  if (Array.isArray(value)) {
    let out = '[';
    let first = true;
    for (let i = 0; i < value.length; i += 1) {
      if (!(i in value)) continue;
      const item: unknown = value[i];
      out += first ? '' : ',';
      first = false;
      out += item === undefined ? 'null' : write(item, depth + 1);
    }
    return `${out}]`;
  }
  const keys = sortedKeys(record);
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    out += first ? '' : ',';
    first = false;
    out += `${JSON.stringify(key)}:${write(member, depth + 1)}`;
  }
  return `${out}}`;
}

/** Key lists up to this long are sorted by insertion. */
const INSERTION_SORT_MAX = 16;

/**
 * The object's own keys in UTF-16 code unit order (what `Array.prototype.sort` does by default),
 * sorted in place by insertion: objects here have a handful of keys, and the built-in sort
 * allocates its work state on every call, the largest share of a model request's garbage.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  // Insertion sort is quadratic: a large object takes the built-in sort.
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j -= 1;
    }
    keys[j + 1] = key;
  }
  return keys;
}
