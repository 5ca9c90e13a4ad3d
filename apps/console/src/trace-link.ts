/**
 * The key inspector's trace link: the configured template (`console.traceUrlTemplate`) with
 * `{keyDigest}`, `{agent}` and `{traceId}` filled in, each URL-encoded. The digest is computed on
 * the server (the salt never reaches the browser). Pure.
 */

/** What a template may name. */
export interface TraceLinkFields {
  readonly keyDigest: string;
  readonly agent: string;
  /** The suspension's trace id (hex), or empty. */
  readonly traceId: string;
}

/** The link, or undefined when no template is configured. */
export function traceLink(template: string, fields: TraceLinkFields): string | undefined {
  if (template.trim() === '') return undefined;
  return template.replace(/\{(keyDigest|agent|traceId)\}/g, (_, name: keyof TraceLinkFields) => encodeURIComponent(fields[name]));
}
