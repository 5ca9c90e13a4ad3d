// The decoder runs on cached bytes as well as fresh ones, so its total, pure mapping from bytes is pinned here without a network.
import { describe, expect, it } from 'vitest';
import { ProviderError, ProviderRequestError } from '#core';
import { decodeOpenAiCompatible } from './openai-compatible-decode.js';

const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
const completion = (message: unknown, extra: object = {}): Uint8Array => bytes({ choices: [{ index: 0, message }], ...extra });

describe('decodeOpenAiCompatible', () => {
  it('reads the first choice text and the reported usage', () => {
    const body = completion(
      { role: 'assistant', content: 'first' },
      { usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } },
    );
    expect(decodeOpenAiCompatible(body)).toEqual({ text: 'first', usage: { promptTokens: 12, completionTokens: 4, totalTokens: 16 } });
  });

  it('derives total tokens when the provider omits them, and omits usage it cannot trust', () => {
    expect(decodeOpenAiCompatible(completion({ content: 'x' }, { usage: { prompt_tokens: 2, completion_tokens: 3 } })).usage).toEqual({
      promptTokens: 2,
      completionTokens: 3,
      totalTokens: 5,
    });
    expect(decodeOpenAiCompatible(completion({ content: 'x' }, { usage: { prompt_tokens: 'two' } }))).toEqual({ text: 'x' });
    expect(decodeOpenAiCompatible(completion({ content: 'x' }))).toEqual({ text: 'x' });
  });

  it('returns tool calls as structured values, never as JSON text', () => {
    const toolCalls = [
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"nats"}' } },
      { id: 'call_2', type: 'function', function: { name: 'broken', arguments: '{"q":' } },
    ];
    expect(decodeOpenAiCompatible(completion({ role: 'assistant', content: null, tool_calls: toolCalls }))).toMatchObject({
      text: '',
      toolCalls: [
        { id: 'call_1', name: 'lookup', arguments: { q: 'nats' } },
        { id: 'call_2', name: 'broken', arguments: '{"q":' },
      ],
    });
    expect(decodeOpenAiCompatible(completion({ role: 'assistant', content: null })).text).toBe('');
  });

  it('joins the text of content parts', () => {
    const parts = [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: {} }, { type: 'text', text: 'b' }];
    expect(decodeOpenAiCompatible(completion({ content: parts })).text).toBe('ab');
  });

  it('decodes the same bytes to the same result every time', () => {
    const body = completion({ content: 'stable' }, { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    expect(decodeOpenAiCompatible(body)).toEqual(decodeOpenAiCompatible(Uint8Array.from(body)));
  });

  it.each([
    ['invalid UTF-8', new Uint8Array([0xff, 0xfe, 0x7b])],
    ['not JSON', bytes('<html>bad gateway</html>')],
    ['a JSON array', bytes([1, 2])],
    ['no choices', bytes({ object: 'chat.completion' })],
    ['empty choices', bytes({ choices: [] })],
    ['a choice without a message', bytes({ choices: [{ text: 'legacy completion' }] })],
    ['numeric content', completion({ content: 42 })],
  ])('refuses a body with %s as a terminal ProviderRequestError', (_label, body) => {
    let thrown: unknown;
    try {
      decodeOpenAiCompatible(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProviderRequestError);
    expect(thrown).not.toBeInstanceOf(ProviderError);
    expect((thrown as ProviderRequestError).status).toBeUndefined();
  });

  it('names the provider error message when a 2xx body carries an error object instead of choices', () => {
    expect(() => decodeOpenAiCompatible(bytes({ error: { message: 'model overloaded' } }))).toThrow(/model overloaded/);
  });
});
