// The router picks a provider by alias and decodes cached bytes by their shape alone, so a replayed answer reads the same whichever provider is configured now.
import { describe, expect, it } from 'vitest';
import type { ModelProvider, ModelRequest } from '#core';
import { ProviderConfigError } from './errors.js';
import { FakeLlm } from './fake-llm.js';
import { matchAny } from './fake-llm-matchers.js';
import { respondWith, respondWithChat } from './fake-llm-behaviours.js';
import { ModelRouter } from './model-router.js';

const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });
const anthropicBody = JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: { q: 1 } }], stop_reason: 'tool_use', usage: { input_tokens: 3, output_tokens: 2 } });

describe('ModelRouter', () => {
  it('sends an aliased call to its provider with the real model id, and anything else to the default', async () => {
    const fallback = new FakeLlm({ rules: [[matchAny(), respondWithChat('from default')]] });
    const claude = new FakeLlm({ rules: [[matchAny(), respondWith(anthropicBody)]] });
    const router = new ModelRouter({ default: fallback, providers: new Map<string, ModelProvider>([['claude', claude]]), aliases: new Map([['fast', { provider: 'claude', model: 'claude-haiku' }]]) });
    const ask = (model: string): ModelRequest => ({ model, messages: [{ role: 'user', content: 'hi' }] });

    const aliased = await router.complete(ask('fast'), live());
    expect(claude.requests.map((r) => r.model)).toEqual(['claude-haiku']);
    expect(router.decode(aliased)).toEqual({ text: '', toolCalls: [{ id: 't1', name: 'lookup', arguments: { q: 1 } }], stopReason: 'tool_use', usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } });

    const plain = await router.complete(ask('gpt-x'), live());
    expect(fallback.requests.map((r) => r.model)).toEqual(['gpt-x']);
    expect(router.decode(plain).text).toBe('from default');
  });

  it('refuses an alias naming a provider that is not configured', () => {
    expect(() => new ModelRouter({ default: new FakeLlm({ rules: [] }), aliases: new Map([['fast', { provider: 'nope', model: 'x' }]]) })).toThrow(ProviderConfigError);
  });
});
