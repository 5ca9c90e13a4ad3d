/**
 * The entity key and agent name of an HTTP request, read the one canonical way (docs/auth.md,
 * "Keys over HTTP"; decision 0043):
 *
 * - the path segment is the key's **text**, percent-encoded UTF-8 (`caf%C3%A9`,
 *   `user@example.com` or `user%40example.com`). Raw non-ASCII bytes in the request line are
 *   refused by Node's HTTP parser (400); should one get through, it is read as UTF-8 too, never
 *   as the Latin-1 Node would hand over (which would make `café` another key);
 * - the text becomes bytes by `keyFromText` (UTF-8 of the NFC form), as in the client and the CLI;
 * - the segment is never a key token: `user=40example=2Ecom` in a path is that literal text;
 * - for keys that are awkward in a path, send `_` as the segment and the key in `Agents-Key`
 *   (UTF-8 text, or base64 bytes with `Agents-Key-Encoding: base64`), exactly as on NATS.
 *
 * So `café` reaches the same actor as the NATS subject token `caf=C3=A9`, the path `caf%C3%A9`,
 * and `Agents-Key: café`. Pure.
 */
import { AGENT_NAME_PATTERN, HeaderName } from '#core';
import { encodeKeyToken, keyFromText } from '#routing';

/** A decoded value, or why it cannot be read. */
export type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text of one raw path segment (as it stands in `req.url`, where Node keeps each byte as one
 * Latin-1 character): percent-escapes and raw bytes are both taken as UTF-8.
 */
export function segmentText(raw: string): Decoded<string> {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return { ok: false, problem: `bad percent-escape at offset ${i}` };
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (code > 0xff) {
      return { ok: false, problem: `character U+${code.toString(16).toUpperCase()} cannot stand in a request line` };
    } else {
      bytes.push(code);
    }
  }
  try {
    return { ok: true, value: strictUtf8.decode(Uint8Array.from(bytes)) };
  } catch {
    return { ok: false, problem: 'not UTF-8 (percent-encode the UTF-8 bytes of the text)' };
  }
}

/** The rule every agent name follows, as a refusal states it. */
export const AGENT_NAME_RULE = `an agent name is 1 to 64 characters of [a-z0-9_-] starting with a letter (${AGENT_NAME_PATTERN.source})`;

/** The agent of a raw path segment, or the rule it breaks. */
export function agentFromSegment(raw: string): Decoded<string> {
  const text = segmentText(raw);
  if (!text.ok) return { ok: false, problem: `agent segment: ${text.problem}; ${AGENT_NAME_RULE}` };
  if (!AGENT_NAME_PATTERN.test(text.value)) return { ok: false, problem: `${JSON.stringify(text.value)} is not an agent name: ${AGENT_NAME_RULE}` };
  return text;
}

/** Header values as Node gives them: each byte of the field value as one Latin-1 character. */
export type RawHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The entity key of a request: from the path segment, or from `Agents-Key` (with the path segment
 * `_` or the same key). Empty keys are refused here; the size limit is ingress's key rule.
 */
export function keyOfRequest(rawSegment: string, headers: RawHeaders): Decoded<Uint8Array> {
  const segment = segmentText(rawSegment);
  if (!segment.ok) return { ok: false, problem: `key segment: ${segment.problem}` };
  const header = single(headers[HeaderName.Key.toLowerCase()]);
  if (header === null) return { ok: false, problem: `${HeaderName.Key} is repeated` };
  if (header === undefined) {
    if (segment.value === '') return { ok: false, problem: 'the key is empty' };
    return { ok: true, value: keyFromText(segment.value) };
  }
  const fromHeader = headerKey(header, single(headers[HeaderName.KeyEncoding.toLowerCase()]));
  if (!fromHeader.ok) return fromHeader;
  if (segment.value !== '_' && encodeKeyToken(keyFromText(segment.value)) !== encodeKeyToken(fromHeader.value)) {
    return { ok: false, problem: `the path names another key than ${HeaderName.Key} (use '_' in the path, or the same key)` };
  }
  return fromHeader;
}

function headerKey(raw: string, encoding: string | undefined | null): Decoded<Uint8Array> {
  const bytes = Buffer.from(raw, 'latin1');
  if (encoding === null) return { ok: false, problem: `${HeaderName.KeyEncoding} is repeated` };
  if (encoding === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(raw.trim())) return { ok: false, problem: `${HeaderName.Key} is not base64` };
    const key = Buffer.from(raw.trim(), 'base64');
    return key.length === 0 ? { ok: false, problem: 'the key is empty' } : { ok: true, value: new Uint8Array(key) };
  }
  if (encoding !== undefined && encoding !== 'utf-8') return { ok: false, problem: `unknown ${HeaderName.KeyEncoding} '${encoding}' (utf-8 or base64)` };
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, problem: `${HeaderName.Key} is not UTF-8 (send ${HeaderName.KeyEncoding}: base64 for other bytes)` };
  }
  if (text === '') return { ok: false, problem: 'the key is empty' };
  return { ok: true, value: keyFromText(text) };
}

/** The one value of a header, `undefined` when absent, `null` when repeated. */
export function single(value: string | readonly string[] | undefined): string | undefined | null {
  if (value === undefined || typeof value === 'string') return value;
  return value.length === 1 ? value[0] : value.length === 0 ? undefined : null;
}
