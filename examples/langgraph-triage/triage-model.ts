/**
 * The scripted model of the triage example (`AGENTS_MODEL_SCRIPT`): answers in the OpenAI
 * chat-completions shape. A ticket without a tool result yet gets a `refund` tool call for the
 * order and amount it names; after the tool's result it replies with the outcome. Deterministic
 * and offline.
 */
import { respondWith, matchModel, type FakeLlmRule } from '#providers';
import type { ModelRequest } from '#core';

type Message = { role: string; content?: unknown; tool_call_id?: string };

function answer(request: ModelRequest): string {
  const messages = request.messages as unknown as Message[];
  const tool = messages.findLast((m) => m.role === 'tool');
  if (tool !== undefined) {
    return JSON.stringify({ id: 'chatcmpl-triage', object: 'chat.completion', created: 0, model: request.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `Done: ${String(tool.content)}` } }] });
  }
  const ticket = String(messages.find((m) => m.role === 'user')?.content ?? '');
  const orderId = /\bo-\d+\b/.exec(ticket)?.[0] ?? 'unknown';
  const amount = Number(/(\d+)\s*$/.exec(ticket)?.[1] ?? '1');
  const call = { id: `call-${orderId}`, type: 'function', function: { name: 'refund', arguments: JSON.stringify({ orderId, amount }) } };
  return JSON.stringify({ id: 'chatcmpl-triage', object: 'chat.completion', created: 0, model: request.model, choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: '', tool_calls: [call] } }] });
}

export const rules: readonly FakeLlmRule[] = [[matchModel('triage-model'), respondWith(answer)]];
