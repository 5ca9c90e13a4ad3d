/**
 * Request matchers for {@link FakeLlm} rules. Each is a pure predicate over the request (and its
 * canonical JSON), with a description used in `UnmatchedRequestError` messages.
 */
import type { ModelRequest } from '#core';

/** Decides whether a `FakeLlm` rule applies to a request. MUST be pure: no state, no clock. */
export interface FakeLlmMatcher {
  /** Human-readable form, e.g. `matchModel("fake-1")`, shown when nothing matches. */
  readonly description: string;
  /**
   * @param canonicalRequest - The request as RFC 8785 canonical JSON (sorted keys, no
   *   whitespace), the same form the replay cache keys on.
   */
  matches(request: ModelRequest, canonicalRequest: string): boolean;
}

/** Matches every request: the catch-all, usually last. */
export function matchAny(): FakeLlmMatcher {
  return { description: 'matchAny()', matches: () => true };
}

/** Matches requests whose `model` equals `model` exactly. */
export function matchModel(model: string): FakeLlmMatcher {
  return { description: `matchModel(${JSON.stringify(model)})`, matches: (request) => request.model === model };
}

/**
 * Matches requests whose canonical JSON contains `substring`. Plain words match message text
 * directly; a substring spanning JSON syntax must be written in canonical form, e.g.
 * `matchContains('"role":"system"')` (sorted keys, no spaces, JSON string escapes).
 */
export function matchContains(substring: string): FakeLlmMatcher {
  return {
    description: `matchContains(${JSON.stringify(substring)})`,
    matches: (_request, canonicalRequest) => canonicalRequest.includes(substring),
  };
}

/**
 * Matches requests for which `predicate` returns true. The predicate MUST be pure, or the
 * fake stops being deterministic.
 *
 * @param description - Shown in unmatched-request messages (default `matchWhere(<predicate>)`).
 */
export function matchWhere(predicate: (request: ModelRequest) => boolean, description?: string): FakeLlmMatcher {
  return { description: description ?? 'matchWhere(<predicate>)', matches: (request) => predicate(request) };
}
