/**
 * The native Anthropic Messages API transport: one non-streaming `POST <baseUrl>/v1/messages` per
 * attempt through the official `@anthropic-ai/sdk` client, read as the raw HTTP response so the
 * replay cache stores the exact bytes the API sent (decision record 0040). The SDK's own retries
 * are off: this class retries retryable failures itself, with an injected sleep and jitter source,
 * so tests are exact and a retry after a crash is governed by the same policy as the
 * OpenAI-compatible provider. Importing this file has no side effects.
 */
import Anthropic from '@anthropic-ai/sdk';
import pRetry from 'p-retry';
import { ProviderError, ProviderRequestError, ProviderTimeout, RateLimitError, ServerError } from '#core';
import type { BackoffPolicy, DecodedResponse, JsonValue, ModelProvider, ModelRequest, ProviderCallOptions } from '#core';
import { abortableDelay } from './abortable-delay.js';
import type { Delay } from './abortable-delay.js';
import { decodeAnthropicMessage } from './anthropic-messages-decode.js';
import { ProviderConfigError } from './errors.js';
import { fullJitterBackoffMs } from './full-jitter-backoff.js';
import { parseRetryAfterMs } from './retry-after.js';
import type { Secret } from './secret.js';

/** Defaults of {@link AnthropicMessagesProviderOptions}. */
export const ANTHROPIC_MESSAGES_DEFAULTS = {
  /** API root; the SDK appends `/v1/messages`. */
  baseUrl: 'https://api.anthropic.com',
  /** Per-attempt timeout, covering the request and reading the whole response body. */
  timeoutMs: 60_000,
  /** Attempts per `complete` call, the first included. */
  maxAttempts: 4,
  /** Full-jitter exponential backoff between attempts. */
  backoff: { baseMs: 500, maxMs: 8_000 },
  /** `max_tokens` when the request's params name none (the Messages API requires one). */
  maxTokens: 1_024,
} as const;

/** Configuration of an {@link AnthropicMessagesProvider}. */
export interface AnthropicMessagesProviderOptions {
  /** API root without `/v1` (default `https://api.anthropic.com`); a gateway or a test server otherwise. */
  readonly baseUrl?: string;
  /** Sent as `x-api-key`. Required by the API; a local server may accept any value. */
  readonly apiKey: Secret;
  /** Per-attempt timeout in ms (default 60 000). */
  readonly timeoutMs?: number;
  /** Attempts per call, the first included (default 4); `1` disables retries. */
  readonly maxAttempts?: number;
  /** Backoff bounds (default `{ baseMs: 500, maxMs: 8000 }`). */
  readonly backoff?: Partial<BackoffPolicy>;
  /** `max_tokens` when a request's params name none (default 1024). */
  readonly defaultMaxTokens?: number;
  /** Uniform `[0, 1)` source for jitter (default `Math.random`); inject it to make delays exact in tests. */
  readonly random?: () => number;
  /** How to wait between attempts (default {@link abortableDelay}); MUST reject when the signal aborts. */
  readonly sleep?: Delay;
  /** Epoch ms, only to resolve a `retry-after` HTTP-date (default `Date.now`). */
  readonly now?: () => number;
}

/** Request fields the protocol owns; `request.params` cannot override them. */
const RESERVED_PARAMS: ReadonlySet<string> = new Set(['model', 'messages', 'tools', 'stream']);
/** Anthropic's status for "overloaded": retryable like a 5xx. */
const OVERLOADED = 529;
const SNIPPET_CHARS = 300;

/**
 * A {@link ModelProvider} for the Anthropic Messages API.
 *
 * What the caller can rely on:
 * - `complete` returns the response body bytes VERBATIM (after checking they decode as a message),
 *   so the replay cache stores exactly what the API sent and {@link decode} reads it back with its
 *   text, `tool_use` blocks as typed tool calls, stop reason and usage.
 * - The body is `{ model, messages, max_tokens, system?, tools?, ...params }`: leading
 *   `{ role: 'system', content: string }` messages (the OpenAI shape) are lifted into `system`, so
 *   one agent can call either provider through an alias; `max_tokens` defaults to 1024.
 * - Retryable failures are retried inside `complete`, up to `maxAttempts` attempts with full
 *   jitter backoff floored by `retry-after`; only `ProviderError` subclasses are retried. What
 *   escapes: `RateLimitError` (429, `retryAfterMs`), `ServerError` (5xx, 529 overloaded included),
 *   `ProviderTimeout`, a plain `ProviderError` (connection failure) once attempts are exhausted;
 *   `ProviderRequestError` (any other 4xx, or a 2xx body that is not a message) at once, NEVER
 *   retried; the caller's `signal.reason`, promptly, when the caller aborts.
 * - The API key never appears in error messages, nor in `JSON.stringify`/`util.inspect` of this object.
 */
export class AnthropicMessagesProvider implements ModelProvider {
  readonly name = 'anthropic';
  /** The URL every attempt POSTs to. */
  readonly endpoint: string;

  readonly #client: Anthropic;
  readonly #apiKey: Secret;
  readonly #maxAttempts: number;
  readonly #backoff: BackoffPolicy;
  readonly #defaultMaxTokens: number;
  readonly #random: () => number;
  readonly #sleep: Delay;
  readonly #now: () => number;

  /** @throws {@link ProviderConfigError} for a malformed `baseUrl` or out-of-range numbers. */
  constructor(options: AnthropicMessagesProviderOptions) {
    const baseUrl = apiRoot(options.baseUrl ?? ANTHROPIC_MESSAGES_DEFAULTS.baseUrl);
    this.endpoint = `${baseUrl}/v1/messages`;
    this.#apiKey = options.apiKey;
    const timeoutMs = positive('timeoutMs', options.timeoutMs ?? ANTHROPIC_MESSAGES_DEFAULTS.timeoutMs);
    this.#maxAttempts = options.maxAttempts ?? ANTHROPIC_MESSAGES_DEFAULTS.maxAttempts;
    if (!Number.isSafeInteger(this.#maxAttempts) || this.#maxAttempts < 1) {
      throw new ProviderConfigError(`maxAttempts must be an integer >= 1, got ${String(options.maxAttempts)}`);
    }
    this.#backoff = {
      baseMs: nonNegative('backoff.baseMs', options.backoff?.baseMs ?? ANTHROPIC_MESSAGES_DEFAULTS.backoff.baseMs),
      maxMs: nonNegative('backoff.maxMs', options.backoff?.maxMs ?? ANTHROPIC_MESSAGES_DEFAULTS.backoff.maxMs),
    };
    this.#defaultMaxTokens = positive('defaultMaxTokens', options.defaultMaxTokens ?? ANTHROPIC_MESSAGES_DEFAULTS.maxTokens);
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? abortableDelay;
    this.#now = options.now ?? Date.now;
    // Retries are ours (maxRetries 0); the timeout covers one attempt.
    this.#client = new Anthropic({ apiKey: options.apiKey.reveal(), baseURL: baseUrl, maxRetries: 0, timeout: timeoutMs });
  }

  /** Sends `request` and returns the raw response body, verbatim. See the class doc for what is thrown. */
  async complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const { signal } = options;
    signal.throwIfAborted();
    const body = this.#requestBody(request);
    try {
      return await pRetry(() => this.#attempt(body, signal), {
        retries: this.#maxAttempts - 1,
        // p-retry's own delay stays 0: we wait in shouldRetry, which runs only when another
        // attempt follows (full jitter, a retry-after floor, an injectable sleep).
        minTimeout: 0,
        signal,
        shouldRetry: async ({ error, attemptNumber }) => {
          if (!(error instanceof ProviderError)) return false;
          await this.#sleep(fullJitterBackoffMs(attemptNumber, this.#backoff, this.#random, error.retryAfterMs), signal);
          return true;
        },
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  }

  /** {@link decodeAnthropicMessage}: pure, identical on fresh and cached bytes. */
  decode(body: Uint8Array): DecodedResponse {
    return decodeAnthropicMessage(body);
  }

  /** Keeps the SDK client (which holds the key) out of logs and JSON. */
  toJSON(): { name: string; endpoint: string } {
    return { name: this.name, endpoint: this.endpoint };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `AnthropicMessagesProvider { endpoint: '${this.endpoint}' }`;
  }

  async #attempt(body: Anthropic.MessageCreateParamsNonStreaming, signal: AbortSignal): Promise<Uint8Array> {
    let response: Response;
    try {
      response = await this.#client.messages.create(body, { signal }).asResponse();
    } catch (error) {
      throw this.#failure(error, signal);
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw this.#failure(error, signal);
    }
    try {
      decodeAnthropicMessage(bytes);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProviderRequestError(response.status, `${this.endpoint} answered ${response.status} with ${this.#scrub(reason)}`, { cause: error });
    }
    return bytes;
  }

  /** Maps what the SDK threw onto the runtime's retryable/terminal taxonomy (by type, never by text). */
  #failure(error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted) return signal.reason;
    if (error instanceof Anthropic.APIConnectionTimeoutError) return new ProviderTimeout(`${this.endpoint} did not respond in time`, { cause: error });
    if (error instanceof Anthropic.APIUserAbortError) return signal.reason ?? error;
    if (error instanceof Anthropic.APIConnectionError) return new ProviderError(`request to ${this.endpoint} failed: ${this.#scrub(error.message)}`, { cause: error });
    if (error instanceof Anthropic.APIError && typeof error.status === 'number') {
      const status = error.status;
      const detail = `${this.endpoint} answered ${status}${this.#snippet(error.error)}`;
      if (status === 429) {
        const retryAfterMs = parseRetryAfterMs(headerOf(error.headers, 'retry-after'), this.#now());
        return new RateLimitError(`rate limited: ${detail}`, { retryAfterMs });
      }
      if (status === OVERLOADED) return new ServerError(status, `overloaded: ${detail}`);
      if (status >= 500) return new ServerError(status, `server error: ${detail}`);
      return new ProviderRequestError(status, `request rejected: ${detail}`, { cause: error });
    }
    return new ProviderError(`request to ${this.endpoint} failed: ${this.#scrub(error instanceof Error ? error.message : String(error))}`, { cause: error });
  }

  #requestBody(request: ModelRequest): Anthropic.MessageCreateParamsNonStreaming {
    const system: string[] = [];
    let messages = [...request.messages];
    while (messages.length > 0 && isSystemText(messages[0])) {
      system.push((messages[0] as { content: string }).content);
      messages = messages.slice(1);
    }
    const body: { [name: string]: JsonValue } = { model: request.model, messages, max_tokens: this.#defaultMaxTokens };
    if (system.length > 0) body['system'] = system.join('\n\n');
    if (request.tools !== undefined) body['tools'] = request.tools;
    for (const [name, value] of Object.entries(request.params ?? {})) {
      if (!RESERVED_PARAMS.has(name)) body[name] = value;
    }
    return body as unknown as Anthropic.MessageCreateParamsNonStreaming;
  }

  /** A short, key-free excerpt of an error body (the SDK hands it over parsed). */
  #snippet(parsed: unknown): string {
    if (parsed === undefined || parsed === null) return '';
    const text = this.#scrub(typeof parsed === 'string' ? parsed : JSON.stringify(parsed)).replace(/\s+/g, ' ').trim();
    if (text === '') return '';
    return `: ${text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text}`;
  }

  #scrub(text: string): string {
    const key = this.#apiKey.reveal();
    return key === '' ? text : text.replaceAll(key, '[redacted]');
  }
}

function isSystemText(message: JsonValue | undefined): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const fields = message as { readonly [key: string]: JsonValue };
  return fields['role'] === 'system' && typeof fields['content'] === 'string';
}

function headerOf(headers: unknown, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  if (typeof headers === 'object' && headers !== null) {
    const value = (headers as Record<string, unknown>)[name];
    return typeof value === 'string' ? value : null;
  }
  return null;
}

function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new ProviderConfigError(`baseUrl is not a URL: ${JSON.stringify(baseUrl)}`, { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProviderConfigError(`baseUrl must be http or https, got ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new ProviderConfigError('baseUrl must not carry credentials; configure apiKeyEnv or apiKeyFile instead');
  return baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new ProviderConfigError(`${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new ProviderConfigError(`${name} must be a non-negative number, got ${value}`);
  return value;
}
