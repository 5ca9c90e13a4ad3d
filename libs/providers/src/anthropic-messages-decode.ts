/**
 * Decodes an Anthropic Messages API response body (`POST /v1/messages`, non-streaming) into text,
 * structured tool calls, the stop reason and token usage. Pure and total over bytes: it works
 * identically on fresh provider bytes and on bytes served from the replay cache, and anything that
 * is not a message fails the same way every time. Importing this file has no side effects.
 */
import { ProviderRequestError } from '#core';
import type { DecodedResponse, JsonValue, StopReason, TokenUsage, ToolCall } from '#core';

const utf8 = new TextDecoder('utf-8', { fatal: true });

type JsonObject = { readonly [key: string]: unknown };

/**
 * Extracts what the agent reads from a Messages response:
 * - `text`: the `text` blocks of `content`, joined in order (`''` when there are none);
 * - `toolCalls`: the `tool_use` blocks as `{ id, name, arguments: input }`, in order;
 * - `stopReason`: `end_turn`/`stop_sequence` → `end`, `tool_use` → `tool_use`, `max_tokens` →
 *   `max_tokens`, `refusal` → `refusal`, anything else (`pause_turn`, a future reason) → `other`;
 * - `usage`: `input_tokens` (plus the prompt-cache reads and writes, which are input too) as
 *   prompt tokens and `output_tokens` as completion tokens, when they are non-negative integers.
 *
 * @throws `ProviderRequestError` (status `undefined`, NOT retryable) when the body is not UTF-8,
 *   not JSON, not `type: "message"` (an error envelope included), or has no `content` array.
 */
export function decodeAnthropicMessage(body: Uint8Array): DecodedResponse {
  const root = parseJsonObject(body);
  if (root['type'] !== 'message') throw undecodable(`is not a message (type ${JSON.stringify(root['type'])}${describeErrorField(root)})`);
  const content = root['content'];
  if (!Array.isArray(content)) throw undecodable('has no content array');
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') text += block['text'];
    else if (block['type'] === 'tool_use' && typeof block['name'] === 'string') {
      toolCalls.push({ id: typeof block['id'] === 'string' ? block['id'] : '', name: block['name'], arguments: (block['input'] ?? {}) as JsonValue });
    }
  }
  const usage = tokenUsage(root['usage']);
  const stopReason = stopReasonOf(root['stop_reason']);
  return {
    text,
    ...(usage === undefined ? {} : { usage }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
    ...(stopReason === undefined ? {} : { stopReason }),
  };
}

function stopReasonOf(reason: unknown): StopReason | undefined {
  switch (reason) {
    case undefined:
    case null:
      return undefined;
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_use';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

function tokenUsage(usage: unknown): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const input = usage['input_tokens'];
  const output = usage['output_tokens'];
  if (!isCount(input) || !isCount(output)) return undefined;
  const cacheRead = usage['cache_read_input_tokens'];
  const cacheWrite = usage['cache_creation_input_tokens'];
  const promptTokens = input + (isCount(cacheRead) ? cacheRead : 0) + (isCount(cacheWrite) ? cacheWrite : 0);
  return { promptTokens, completionTokens: output, totalTokens: promptTokens + output };
}

function parseJsonObject(body: Uint8Array): JsonObject {
  let source: string;
  try {
    source = utf8.decode(body);
  } catch (error) {
    throw undecodable('is not valid UTF-8', error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(source);
  } catch (error) {
    throw undecodable('is not JSON', error);
  }
  if (!isObject(parsed)) throw undecodable('is not a JSON object');
  return parsed;
}

function describeErrorField(root: JsonObject): string {
  const error = root['error'];
  if (isObject(error) && typeof error['message'] === 'string') return `, error: ${error['message'].slice(0, 200)}`;
  return '';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function undecodable(reason: string, cause?: unknown): ProviderRequestError {
  return new ProviderRequestError(undefined, `response body is not an Anthropic message: it ${reason}`, cause === undefined ? undefined : { cause });
}
