/**
 * Parses an HTTP `Retry-After` header (RFC 9110 §10.2.3) into a delay in milliseconds. Pure:
 * the current time is an argument, so an HTTP-date is resolved against an injected clock.
 */

const DELAY_SECONDS = /^\d+(?:\.\d+)?$/;
/**
 * The shape shared by IMF-fixdate, RFC 850 and asctime dates (a month name and hh:mm:ss). Checked
 * before `Date.parse`, whose legacy fallback would otherwise read values like `-5` as a date.
 */
const HTTP_DATE_SHAPE = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b.*\b\d{2}:\d{2}:\d{2}\b/;

/**
 * Converts a `Retry-After` value to milliseconds from `nowMs`.
 *
 * - delay-seconds (`"120"`; a fractional `"0.5"` is tolerated) → seconds × 1000, rounded;
 * - an HTTP-date (`"Wed, 21 Oct 2015 07:28:00 GMT"`) → the time until that date, never negative;
 * - absent, blank or unparseable → `undefined` (the caller falls back to its own backoff).
 *
 * @example
 * ```ts
 * parseRetryAfterMs('2', 0);                                        // 2000
 * parseRetryAfterMs('Thu, 01 Jan 1970 00:00:05 GMT', 1_000);         // 4000
 * ```
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  if (DELAY_SECONDS.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  if (!HTTP_DATE_SHAPE.test(trimmed)) return undefined;
  // HTTP dates are always GMT; asctime carries no zone, and Date.parse would read it as local time.
  const dateMs = Date.parse(/\b(?:GMT|UTC)\b/.test(trimmed) ? trimmed : `${trimmed} GMT`);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}
