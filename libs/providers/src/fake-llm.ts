/**
 * The scripted model: the default provider in tests and in the demo. Ordered, first-match-wins
 * `(matcher, behaviour)` rules; it fails closed on anything unscripted, records every request
 * before any latency or failure, and reads no clock and no randomness (latency goes through an
 * injected delay hook), so the same calls in the same order always produce the same outcomes.
 * Importing this file has no side effects.
 */
import { canonicalJson, ProviderRequestError } from '#core';
import type { DecodedResponse, ModelProvider, ModelRequest, ProviderCallOptions } from '#core';
import { abortableDelay } from './abortable-delay.js';
import type { Delay } from './abortable-delay.js';
import { UnmatchedRequestError } from './errors.js';
import type { FakeLlmBehaviour } from './fake-llm-behaviours.js';
import type { FakeLlmMatcher } from './fake-llm-matchers.js';
import { decodeOpenAiCompatible } from './openai-compatible-decode.js';

/** One rule: when `matcher` matches a request, `behaviour` answers it. */
export type FakeLlmRule = readonly [matcher: FakeLlmMatcher, behaviour: FakeLlmBehaviour];

/** Construction options of a {@link FakeLlm}. */
export interface FakeLlmOptions {
  /** Initial rules, tried in order; {@link FakeLlm.on} appends more. */
  readonly rules?: readonly FakeLlmRule[];
  /**
   * How latency is awaited (default {@link abortableDelay}, a `setTimeout`). Inject an instant or
   * recording delay to keep tests fast and assert on latency without a clock.
   */
  readonly delay?: Delay;
  /**
   * Keep every request for {@link FakeLlm.requests} and {@link FakeLlm.callsMatching} (default
   * `true`, for tests). A service answering from a script for hours sets `false`: the record
   * would grow with every call the process ever makes, and nothing reads it there.
   */
  readonly recordCalls?: boolean;
}

interface RecordedCall {
  readonly request: ModelRequest;
  readonly canonical: string;
}

const UNMATCHED_EXCERPT_CHARS = 500;
const lenientUtf8 = new TextDecoder('utf-8');

/**
 * A deterministic, offline {@link ModelProvider} driven by rules.
 *
 * What the caller can rely on:
 * - Rules are tried in order; the first whose matcher matches answers. No rule matching — or no
 *   rules at all — rejects with {@link UnmatchedRequestError} (terminal, NOT a `ProviderError`).
 * - Every call is recorded (a structured clone of the request) before any latency, abort check
 *   or failure, so `requests`/`callCount` count attempts that failed too.
 * - An aborted `signal` rejects with `signal.reason`: at once when already aborted, and during
 *   latency as soon as the injected delay honours the abort; a response is never delivered
 *   after an abort.
 * - `decode` reads chat-completion bodies with the OpenAI-compatible decoder and anything else
 *   as UTF-8 text, so it never throws.
 *
 * @example
 * ```ts
 * const fake = new FakeLlm({ delay: async () => {} })
 *   .on(matchContains('weather'), respondWithChat('sunny'))
 *   .on(matchModel('flaky'), failThenSucceed({ error: new ServerError(503, 'down'), times: 1, then: respondWithChat('ok') }));
 * ```
 */
export class FakeLlm implements ModelProvider {
  readonly name = 'fake';

  readonly #rules: FakeLlmRule[];
  readonly #delay: Delay;
  readonly #calls: RecordedCall[] = [];
  readonly #recordCalls: boolean;
  #callCount = 0;

  constructor(options: FakeLlmOptions = {}) {
    this.#rules = [...(options.rules ?? [])];
    this.#delay = options.delay ?? abortableDelay;
    this.#recordCalls = options.recordCalls ?? true;
  }

  /** Appends a rule (tried after every existing one); returns `this` for chaining. */
  on(matcher: FakeLlmMatcher, behaviour: FakeLlmBehaviour): this {
    this.#rules.push([matcher, behaviour]);
    return this;
  }

  /** Every request received so far, in call order (clones taken at call time); empty unless calls are recorded. */
  get requests(): readonly ModelRequest[] {
    return this.#calls.map((call) => call.request);
  }

  /** How many times `complete` was called, failures included. */
  get callCount(): number {
    return this.#callCount;
  }

  /** The recorded requests `matcher` matches, in call order. */
  callsMatching(matcher: FakeLlmMatcher): readonly ModelRequest[] {
    return this.#calls.filter((call) => matcher.matches(call.request, call.canonical)).map((call) => call.request);
  }

  /**
   * Answers `request` with the first matching rule's behaviour.
   *
   * @throws {@link UnmatchedRequestError} when no rule matches; whatever the behaviour scripts
   *   (e.g. a `ProviderError`); `signal.reason` when the caller aborts; `CanonicalJsonError` when
   *   the request is not JSON data (before it is recorded).
   */
  async complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const { signal } = options;
    const canonical = canonicalJson(request);
    this.#callCount += 1;
    // Behaviours see the recorded clone, so a test's record cannot be changed through them; an
    // unrecorded call hands them the request itself (they only read it).
    const recorded = this.#recordCalls ? structuredClone(request) : request;
    if (this.#recordCalls) this.#calls.push({ request: recorded, canonical });
    signal.throwIfAborted();
    const rule = this.#rules.find(([matcher]) => matcher.matches(recorded, canonical));
    if (rule === undefined) throw this.#unmatched(recorded, canonical);
    const body = await rule[1].respond(recorded, {
      signal,
      delay: (ms) => (ms > 0 ? this.#delay(ms, signal) : Promise.resolve()),
    });
    signal.throwIfAborted();
    return body;
  }

  /** The OpenAI-compatible decoding of a chat-completion body; otherwise the body as UTF-8 text. */
  decode(body: Uint8Array): DecodedResponse {
    try {
      return decodeOpenAiCompatible(body);
    } catch (error) {
      if (error instanceof ProviderRequestError) return { text: lenientUtf8.decode(body) };
      throw error;
    }
  }

  #unmatched(request: ModelRequest, canonical: string): UnmatchedRequestError {
    const excerpt =
      canonical.length > UNMATCHED_EXCERPT_CHARS ? `${canonical.slice(0, UNMATCHED_EXCERPT_CHARS)}…` : canonical;
    if (this.#rules.length === 0) {
      return new UnmatchedRequestError(`FakeLlm has no rules, so every request fails; got ${excerpt}`, request);
    }
    const tried = this.#rules.map(([matcher]) => matcher.description).join(', ');
    return new UnmatchedRequestError(`no FakeLlm rule matches the request (tried ${tried}); got ${excerpt}`, request);
  }
}
