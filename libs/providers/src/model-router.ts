/**
 * Routes each model call to a provider by the model name the agent asked for: a configured alias
 * goes to its provider with the alias's real model id, any other name to the default provider.
 * Importing this file has no side effects.
 */
import type { DecodedResponse, ModelProvider, ModelRequest, ProviderCallOptions } from '#core';
import { decodeAnthropicMessage } from './anthropic-messages-decode.js';
import { ProviderConfigError } from './errors.js';

/** Where one alias goes. */
export interface ModelRoute {
  /** A key of the router's providers, or `default`. */
  readonly provider: string;
  /** The model id that provider is sent. */
  readonly model: string;
}

/** What a {@link ModelRouter} is built from. */
export interface ModelRouterOptions {
  /** Unaliased model names go here. */
  readonly default: ModelProvider;
  /** More providers by name. */
  readonly providers?: ReadonlyMap<string, ModelProvider>;
  /** Alias → provider and real model id. */
  readonly aliases?: ReadonlyMap<string, ModelRoute>;
}

/**
 * A {@link ModelProvider} over several: `complete` sends an aliased request to the alias's provider
 * with the model id replaced, so the replay-cache key stays the alias the agent wrote (re-pointing
 * an alias does not invalidate committed answers: a retry still gets the bytes it got before).
 * `decode` is pure over the bytes, as the cache needs: a body shaped as an Anthropic message
 * (`"type": "message"`) is read by the Anthropic decoder, anything else by the default provider's.
 */
export class ModelRouter implements ModelProvider {
  readonly name: string;
  readonly #default: ModelProvider;
  readonly #providers: ReadonlyMap<string, ModelProvider>;
  readonly #aliases: ReadonlyMap<string, ModelRoute>;

  /** @throws {@link ProviderConfigError} when an alias names a provider that does not exist. */
  constructor(options: ModelRouterOptions) {
    this.#default = options.default;
    this.#providers = options.providers ?? new Map();
    this.#aliases = options.aliases ?? new Map();
    for (const [alias, route] of this.#aliases) {
      if (route.provider !== 'default' && !this.#providers.has(route.provider)) throw new ProviderConfigError(`model alias '${alias}' names provider '${route.provider}', which is not configured`);
    }
    this.name = options.default.name;
  }

  /** The provider and model id a request goes to (telemetry labels use them). */
  route(model: string): { readonly provider: ModelProvider; readonly model: string } {
    const route = this.#aliases.get(model);
    if (route === undefined) return { provider: this.#default, model };
    return { provider: route.provider === 'default' ? this.#default : (this.#providers.get(route.provider) as ModelProvider), model: route.model };
  }

  complete(request: ModelRequest, options: ProviderCallOptions): Promise<Uint8Array> {
    const { provider, model } = this.route(request.model);
    return provider.complete(model === request.model ? request : { ...request, model }, options);
  }

  decode(body: Uint8Array): DecodedResponse {
    if (looksLikeAnthropicMessage(body)) return decodeAnthropicMessage(body);
    if (this.#default.decode !== undefined) return this.#default.decode(body);
    return { text: new TextDecoder().decode(body) };
  }
}

const lenient = new TextDecoder('utf-8');

/**
 * `"type": "message"` written out, as every Anthropic message body has it at its top level. A
 * JSON string cannot contain it unescaped, so a body without it is not an Anthropic message
 * (short of keys spelled with `\u` escapes, which no provider sends): the default decoder
 * parses it, once, instead of after a full parse here.
 */
const MESSAGE_TYPE = /"type"\s*:\s*"message"/;

/** A cheap shape test: a JSON object whose `type` is `message` (OpenAI completions have `choices`, never that). */
function looksLikeAnthropicMessage(body: Uint8Array): boolean {
  const text = lenient.decode(body);
  if (!MESSAGE_TYPE.test(text)) return false;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && (parsed as { type?: unknown }).type === 'message';
  } catch {
    return false;
  }
}
