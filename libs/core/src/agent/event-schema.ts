import type { StandardResult, StandardSchema } from '../tools/tool-definition.js';

/** The outcome of parsing an event with an agent's schema: the value, or what is wrong with it. */
export type ParsedEvent = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `path: message; path: message` — every issue the schema reported, in its order. */
export function describeIssues(issues: readonly { readonly message: string; readonly path?: readonly unknown[] }[]): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((segment) => (typeof segment === 'object' && segment !== null && 'key' in segment ? String((segment as { key: unknown }).key) : String(segment)));
      return path.length > 0 ? `${path.join('.')}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function decodeJson(event: Uint8Array): ParsedEvent {
  try {
    return { ok: true, value: JSON.parse(utf8.decode(event)) as unknown };
  } catch (error) {
    return { ok: false, problem: `the event is not JSON: ${(error as Error).message}` };
  }
}

function verdict(result: StandardResult<unknown>): ParsedEvent {
  if (result.issues !== undefined) return { ok: false, problem: `the event does not match the agent's schema: ${describeIssues(result.issues)}` };
  return { ok: true, value: result.value };
}

/**
 * Parses `event` as JSON and validates it with `schema` (a Standard Schema). Never throws: a schema
 * that throws is reported as a problem too, so a buggy schema fails the event, not the key.
 * Deterministic for deterministic schemas: the same bytes always give the same verdict.
 */
export async function parseEvent(schema: StandardSchema<unknown>, event: Uint8Array): Promise<ParsedEvent> {
  const json = decodeJson(event);
  if (!json.ok) return json;
  try {
    return verdict(await schema['~standard'].validate(json.value));
  } catch (error) {
    return { ok: false, problem: `the event schema threw: ${(error as Error).message}` };
  }
}

/**
 * The synchronous check ingress makes: the problem, `undefined` when the event is valid, or
 * `'async'` when the schema validates asynchronously (ingress then leaves the check to the
 * activator, which refuses the event the same way before the agent runs).
 */
export function eventProblem(schema: StandardSchema<unknown>, event: Uint8Array): string | undefined | 'async' {
  const json = decodeJson(event);
  if (!json.ok) return json.problem;
  try {
    const result = schema['~standard'].validate(json.value);
    if (result instanceof Promise) {
      result.catch(() => undefined);
      return 'async';
    }
    const checked = verdict(result);
    return checked.ok ? undefined : checked.problem;
  } catch (error) {
    return `the event schema threw: ${(error as Error).message}`;
  }
}
