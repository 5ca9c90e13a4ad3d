/**
 * Reads the credential out of HTTP request headers, without judging it: `Authorization: Bearer
 * <token>` (a JWT when it has the three dot-separated base64url segments, an API key otherwise) or
 * `X-Api-Key: <key>`. Exactly one credential may be presented; two are malformed, not "pick one".
 */

/** A credential as presented, before verification. */
export type PresentedCredential =
  | { readonly kind: 'none' }
  | { readonly kind: 'api-key'; readonly key: string }
  | { readonly kind: 'jwt'; readonly token: string }
  | { readonly kind: 'malformed'; readonly problem: string };

/** Header values as Node and Express give them (names in lower case). */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Classifies one raw secret: a compact JWT, or an API key. */
export function classifyCredential(secret: string): PresentedCredential {
  const value = secret.trim();
  if (value === '') return { kind: 'malformed', problem: 'empty credential' };
  if (/\s/.test(value)) return { kind: 'malformed', problem: 'credential contains whitespace' };
  return JWT_SHAPE.test(value) ? { kind: 'jwt', token: value } : { kind: 'api-key', key: value };
}

/** Reads the credential from request headers (lower-case names, as Node delivers them). */
export function credentialFromHeaders(headers: HeaderBag): PresentedCredential {
  const authorization = single(headers.authorization);
  const apiKey = single(headers['x-api-key']);
  if (authorization === null || apiKey === null) return { kind: 'malformed', problem: 'credential header repeated' };
  if (authorization !== undefined && apiKey !== undefined) {
    return { kind: 'malformed', problem: 'both Authorization and X-Api-Key present' };
  }
  if (apiKey !== undefined) return classifyCredential(apiKey);
  if (authorization === undefined) return { kind: 'none' };
  const match = /^Bearer[ ]+(.+)$/i.exec(authorization.trim());
  if (match?.[1] === undefined) return { kind: 'malformed', problem: 'Authorization scheme must be Bearer' };
  return classifyCredential(match[1]);
}

/** The one value of a header, `undefined` when absent, `null` when repeated. */
function single(value: string | readonly string[] | undefined): string | undefined | null {
  if (value === undefined || typeof value === 'string') return value;
  return value.length === 1 ? value[0] : value.length === 0 ? undefined : null;
}
