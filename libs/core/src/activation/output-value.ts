import type { OutputValue } from '../agent/outcome.js';
import { canonicalJson } from '../json/canonical-json.js';

const utf8 = new TextEncoder();

/**
 * The bytes an output value publishes: bytes verbatim, strings as UTF-8, anything else as
 * canonical JSON (so a replay publishes identical bytes). Empty means "publish nothing".
 */
export function outputBytes(value: OutputValue): Uint8Array {
  if (value === undefined) return new Uint8Array(0);
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return utf8.encode(value);
  return utf8.encode(canonicalJson(value));
}
