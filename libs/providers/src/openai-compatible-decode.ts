/**
 * Decodes an OpenAI-compatible chat-completions response body into text and token usage. Pure
 * and total over bytes: it works identically on fresh provider bytes and on bytes served from
 * the replay cache, and anything that is not a chat completion fails the same way every time.
 */
import { ProviderRequestError } from '#core';
import type { DecodedResponse, JsonValue, StopReason, TokenUsage, ToolCall } from '#core';

const utf8 = new TextDecoder('utf-8', { fatal: true });

type JsonObject = { readonly [key: string]: unknown };

/**
 * Extracts the assistant text and usage from a chat-completions body.
 *
 * - `text` is `choices[0].message.content` when it is a string; an array of content parts is
 *   joined from their `text` fields; `''` when the content is null or absent.
 * - `toolCalls` are the message's `tool_calls` of type `function` as structured values: `id`,
 *   `function.name`, and `function.arguments` parsed from its JSON string (kept as the raw string
 *   when the model wrote invalid JSON). Never flattened into `text`.
 * - `stopReason` maps `finish_reason`: `stop` → `end`, `tool_calls`/`function_call` → `tool_use`,
 *   `length` → `max_tokens`, `content_filter` → `refusal`, anything else → `other`.
 * - `usage` is read from `usage.{prompt_tokens, completion_tokens, total_tokens}` when the first
 *   two are non-negative integers (`total_tokens` defaults to their sum); otherwise it is absent.
 *
 * @throws `ProviderRequestError` (status `undefined`, NOT retryable) when the body is not UTF-8,
 *   not JSON, or has no `choices[0].message`, or its content has an unexpected type.
 *
 * @example
 * ```ts
 * const { text, usage } = decodeOpenAiCompatible(body);
 * ```
 */
export function decodeOpenAiCompatible(body: Uint8Array): DecodedResponse {
  const root = parseJsonObject(body);
  const choices = root['choices'];
  if (!Array.isArray(choices) || choices.length === 0) {
    throw undecodable(`has no choices${describeErrorField(root)}`);
  }
  const first: unknown = choices[0];
  const message = isObject(first) ? first['message'] : undefined;
  if (!isObject(message)) throw undecodable('has no choices[0].message object');
  const text = messageText(message);
  const usage = tokenUsage(root['usage']);
  const toolCalls = messageToolCalls(message['tool_calls']);
  const stopReason = finishReason(isObject(first) ? first['finish_reason'] : undefined);
  return {
    text,
    ...(usage === undefined ? {} : { usage }),
    ...(toolCalls.length === 0 ? {} : { toolCalls }),
    ...(stopReason === undefined ? {} : { stopReason }),
  };
}

function messageToolCalls(calls: unknown): ToolCall[] {
  if (!Array.isArray(calls)) return [];
  const out: ToolCall[] = [];
  for (const call of calls) {
    if (!isObject(call)) continue;
    const fn = call['function'];
    if (!isObject(fn) || typeof fn['name'] !== 'string') continue;
    out.push({ id: typeof call['id'] === 'string' ? call['id'] : '', name: fn['name'], arguments: parseArguments(fn['arguments']) });
  }
  return out;
}

/** The arguments JSON string parsed; the raw string when it is not JSON; `{}` when absent. */
function parseArguments(raw: unknown): JsonValue {
  if (typeof raw !== 'string') return isObject(raw) ? (raw as JsonValue) : {};
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    return raw;
  }
}

function finishReason(reason: unknown): StopReason | undefined {
  switch (reason) {
    case undefined:
    case null:
      return undefined;
    case 'stop':
      return 'end';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refusal';
    default:
      return 'other';
  }
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

function messageText(message: JsonObject): string {
  const content = message['content'];
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(partText).join('');
  if (content === null || content === undefined) return '';
  throw undecodable(`has choices[0].message.content of type ${typeof content}`);
}

function partText(part: unknown): string {
  return isObject(part) && typeof part['text'] === 'string' ? part['text'] : '';
}

function tokenUsage(usage: unknown): TokenUsage | undefined {
  if (!isObject(usage)) return undefined;
  const promptTokens = usage['prompt_tokens'];
  const completionTokens = usage['completion_tokens'];
  if (!isCount(promptTokens) || !isCount(completionTokens)) return undefined;
  const total = usage['total_tokens'];
  return { promptTokens, completionTokens, totalTokens: isCount(total) ? total : promptTokens + completionTokens };
}

function describeErrorField(root: JsonObject): string {
  const error = root['error'];
  if (isObject(error) && typeof error['message'] === 'string') return ` (error: ${error['message'].slice(0, 200)})`;
  return '';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function undecodable(reason: string, cause?: unknown): ProviderRequestError {
  return new ProviderRequestError(
    undefined,
    `response body is not an OpenAI-compatible chat completion: it ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}
