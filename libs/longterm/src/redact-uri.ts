/**
 * Credential redaction for long-term URIs. Every error message and log line that names a backend
 * goes through here, so a password in `AGENTS_LONGTERM_URI` never reaches a log. Pure.
 */

/** What replaces a secret. */
export const REDACTED = '***';

const SECRET_PARAMS = new Set(['password', 'pass', 'passwd', 'sslpassword', 'token', 'secret', 'sslkey']);

/**
 * The URI with its password (userinfo after `:`) and secret-looking query parameters replaced by
 * `***`; the user name, host, port, path and other parameters stay readable. Text that does not
 * parse as a URL gets the userinfo pattern `//user:secret@` masked all the same.
 *
 * @example
 * ```ts
 * redactUri('redis://app:s3cret@cache:6379/2'); // 'redis://app:***@cache:6379/2'
 * ```
 */
export function redactUri(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return uri.replace(/(\/\/[^/@:]*:)[^@/]*@/, `$1${REDACTED}@`);
  }
  if (url.protocol === 'sqlite:' || url.protocol === 'memory:') return uri;
  if (url.password !== '') url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) url.searchParams.set(name, REDACTED);
  }
  return url.toString();
}

/**
 * `text` (a driver's error message) with every secret of `uri` masked: its password, raw and
 * URL-decoded, and secret query parameter values. Use it on messages the URI's client produced.
 */
export function redactSecrets(text: string, uri: string): string {
  const secrets = new Set<string>();
  try {
    const url = new URL(uri);
    if (url.password !== '') {
      secrets.add(url.password);
      secrets.add(safeDecode(url.password));
    }
    for (const [name, value] of url.searchParams) if (SECRET_PARAMS.has(name.toLowerCase()) && value !== '') secrets.add(value);
  } catch {
    const match = /\/\/[^/@:]*:([^@/]*)@/.exec(uri);
    if (match?.[1]) secrets.add(match[1]);
  }
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (secret.length > 0) out = out.split(secret).join(REDACTED);
  return out;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
