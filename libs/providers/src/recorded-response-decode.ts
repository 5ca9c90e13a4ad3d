/**
 * Decodes a recorded model response (a replay-cache entry of a snapshot) the way the deployment's
 * provider router decoded it when it was fresh: an Anthropic Messages body as one, a chat
 * completion as an OpenAI-compatible one, anything else as UTF-8 text (as the fake model does).
 * Offline replay uses it so a recorded body yields the same text, tool calls and usage the agent
 * saw in the cluster. Pure; importing this file has no side effects.
 */
import { ProviderRequestError, type DecodedResponse } from '#core';
import { decodeAnthropicMessage } from './anthropic-messages-decode.js';
import { decodeOpenAiCompatible } from './openai-compatible-decode.js';

const lenient = new TextDecoder('utf-8');

/** `type: "message"` marks an Anthropic body (a chat completion never has it). */
function isAnthropicMessage(body: Uint8Array): boolean {
  try {
    const parsed: unknown = JSON.parse(lenient.decode(body));
    return typeof parsed === 'object' && parsed !== null && (parsed as { type?: unknown }).type === 'message';
  } catch {
    return false;
  }
}

/**
 * @example
 * ```ts
 * const report = await replaySnapshot(snapshot, { ...options, decode: decodeRecordedResponse });
 * ```
 */
export function decodeRecordedResponse(body: Uint8Array): DecodedResponse {
  if (isAnthropicMessage(body)) return decodeAnthropicMessage(body);
  try {
    return decodeOpenAiCompatible(body);
  } catch (error) {
    if (error instanceof ProviderRequestError) return { text: lenient.decode(body) };
    throw error;
  }
}
