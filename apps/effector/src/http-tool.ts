/**
 * The built-in `http` tool (enabled by `effector.httpToolUrl`): POSTs the intent's arguments as
 * canonical JSON to one URL with `Idempotency-Key: <intent id>`, so the endpoint can make the
 * effect exactly-once even when the effector re-executes an intent (after a crash mid-call, a
 * lost lease or a retry). 2xx → OK with the response's JSON (a body that is not JSON becomes a
 * JSON string; an empty one null); 429 and 5xx → retried (`HttpToolUnavailable`, honouring a
 * `Retry-After` in seconds); any other status → ERROR (`HttpToolRefused`); no answer → retried.
 */
import { canonicalJson, type AnyToolDefinition, type ToolCallContext } from '#core';
import { HttpToolRefused, HttpToolUnavailable } from './effector-errors.js';

/** The name of the built-in tool (intents go to `agents.intents.<agent>.http`). */
export const HTTP_TOOL_NAME = 'http';

/** The header carrying the intent id. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The `fetch` the tool calls (injected in specs). */
export type HttpFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Bytes of a refused response's body quoted in the error message. */
const QUOTED_BODY_CHARS = 200;

/** The built-in `http` tool posting to `url`. */
export function createHttpTool(url: string, fetchImpl: HttpFetch = fetch): AnyToolDefinition {
  return {
    name: HTTP_TOOL_NAME,
    description: `POSTs the arguments as JSON to the effector's configured endpoint with the intent id as ${IDEMPOTENCY_KEY_HEADER}`,
    sideEffect: true,
    async handler(args: unknown, context: ToolCallContext): Promise<unknown> {
      const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
      if (context.intent !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = context.intent.intentId;
      let response: Response;
      try {
        response = await fetchImpl(url, { method: 'POST', headers, body: canonicalJson(args), signal: context.signal });
      } catch (error) {
        if (context.signal.aborted) throw error;
        throw new HttpToolUnavailable(`POST ${url} got no answer: ${(error as Error).message}`, { cause: error });
      }
      const text = await response.text();
      if (response.ok) return parseBody(text);
      const quoted = text.length > QUOTED_BODY_CHARS ? `${text.slice(0, QUOTED_BODY_CHARS)}…` : text;
      const summary = `POST ${url} answered ${response.status} ${response.statusText}${quoted.length > 0 ? `: ${quoted}` : ''}`;
      if (response.status === 429 || response.status >= 500) {
        throw new HttpToolUnavailable(summary, { retryAfterMs: retryAfterMs(response.headers.get('retry-after')) });
      }
      throw new HttpToolRefused(response.status, summary);
    },
  };
}

function parseBody(text: string): unknown {
  if (text.trim().length === 0) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim()) * 1_000;
}
