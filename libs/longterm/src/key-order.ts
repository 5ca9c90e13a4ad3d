/**
 * Key order and prefix ranges, identical in every backend: keys sort by their UTF-8 bytes (which
 * is code-point order; SQLite BINARY, PostgreSQL `COLLATE "C"`, Redis lex ranges), and a prefix
 * scan is the half-open range `[prefix, prefixUpperBound(prefix))`. Ranges instead of `LIKE`
 * make `%` and `_` (and every other character) literal by construction. Pure.
 */

/** Compares two keys by their UTF-8 bytes (code points), not UTF-16 code units. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const MAX_CODE_POINT = 0x10ffff;

/**
 * The least string greater than every string starting with `prefix`: the prefix with its last
 * code point incremented (skipping surrogates, dropping trailing U+10FFFF). `undefined` for ''
 * and for prefixes of U+10FFFF only: then the range has no upper bound.
 *
 * @example
 * ```ts
 * prefixUpperBound('case/'); // 'case0'
 * ```
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last === MAX_CODE_POINT) continue;
    const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
    return String.fromCodePoint(...points, next);
  }
  return undefined;
}
