/**
 * The test kit's model: replies scripted by the spec, counted and recorded, with no network, no
 * clock and no randomness, so a spec can assert how often the model was really paid for.
 */
import { ScriptedModelProvider, canonicalJson, type JsonValue, type ModelProvider, type ModelRequest } from '#core';

/** One scripted reply: text (sent as UTF-8), a JSON value (sent as canonical JSON) or raw bytes. */
export type ModelReply = string | Uint8Array | Exclude<JsonValue, string>;

/**
 * How the kit's model answers: replies used in call order, a function of the request and the
 * 0-based call index, or any `ModelProvider` (its `decode` is kept, so `ctx.callModel` decodes
 * exactly as with that provider in production).
 */
export type ModelScriptInput = readonly ModelReply[] | ((request: ModelRequest, call: number) => ModelReply | Promise<ModelReply>) | ModelProvider;

const utf8 = new TextEncoder();

function replyBytes(reply: ModelReply): Uint8Array {
  if (reply instanceof Uint8Array) return reply;
  return utf8.encode(typeof reply === 'string' ? reply : canonicalJson(reply));
}

/**
 * A provider answering `input`. A list that runs out fails the call (a spec that expected fewer
 * model calls learns so at the call that was one too many).
 */
export function scriptedModel(input: ModelScriptInput): ModelProvider {
  if (typeof input === 'function') return new ScriptedModelProvider(async (request, call) => replyBytes(await input(request, call)));
  if (isProvider(input)) return input;
  const replies = [...input];
  return new ScriptedModelProvider((_request, call) => {
    const reply = replies[call];
    if (reply === undefined) throw new Error(`the scripted model has ${replies.length} replies; call #${call + 1} has none`);
    return replyBytes(reply);
  });
}

function isProvider(value: unknown): value is ModelProvider {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { complete?: unknown }).complete === 'function';
}
