// The Anthropic provider is an HTTP edge, so it is tested against a real local server speaking the Messages wire format: tool_use blocks, stop reasons, 429 with retry-after, 529 overloaded, malformed bodies.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, ProviderRequestError, RateLimitError, ServerError } from '#core';
import type { ModelRequest } from '#core';
import { AnthropicMessagesProvider } from './anthropic-messages-provider.js';
import type { AnthropicMessagesProviderOptions } from './anthropic-messages-provider.js';
import { Secret } from './secret.js';

const API_KEY = 'sk-ant-test-0d3c2b1a99887766';

interface SeenRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

type Script = (index: number, request: SeenRequest, response: ServerResponse) => void;

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function messagesServer(script: Script): Promise<{ baseUrl: string; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = { method: incoming.method, url: incoming.url, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      script(seen.length - 1, request, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, seen };
}

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

const message = (content: unknown[], stopReason: string, usage = { input_tokens: 12, output_tokens: 5 }): string =>
  JSON.stringify({ id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: stopReason, stop_sequence: null, usage });
const errorBody = (type: string, text: string): string => JSON.stringify({ type: 'error', error: { type, message: text } });

const request: ModelRequest = { model: 'claude-test', messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }] };

function recordingSleep(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

function provider(baseUrl: string, options: Partial<AnthropicMessagesProviderOptions> = {}): AnthropicMessagesProvider {
  return new AnthropicMessagesProvider({ baseUrl, apiKey: new Secret(API_KEY), sleep: async () => {}, random: () => 0, ...options });
}

const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('AnthropicMessagesProvider', () => {
  it('posts the Messages request (system lifted, max_tokens defaulted) and returns the body verbatim', async () => {
    const pretty = JSON.stringify(JSON.parse(message([{ type: 'text', text: 'hello' }], 'end_turn')), null, 2) + '\n';
    const server = await messagesServer((_i, _req, res) => send(res, 200, pretty));
    const tools = [{ name: 'lookup', description: 'look up', input_schema: { type: 'object' } }];

    const body = await provider(server.baseUrl).complete({ ...request, tools, params: { temperature: 0.2, model: 'ignored', stream: true } }, live());

    expect(new TextDecoder().decode(body)).toBe(pretty);
    const [seen] = server.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/messages');
    // The SDK (1.15) sends an API key as a bearer credential.
    expect(seen?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers['anthropic-version']).toBeDefined();
    expect(JSON.parse(seen?.body ?? '')).toEqual({ model: 'claude-test', system: 'be brief', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1_024, tools, temperature: 0.2 });
  });

  it('decodes tool_use blocks into typed tool calls, with the stop reason and usage', async () => {
    const content = [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'nats', limit: 3 } },
      { type: 'tool_use', id: 'toolu_02', name: 'refund', input: { amount: 5 } },
    ];
    const server = await messagesServer((_i, _req, res) => send(res, 200, message(content, 'tool_use', { input_tokens: 20, output_tokens: 7, cache_read_input_tokens: 100 } as never)));
    const anthropic = provider(server.baseUrl);

    expect(anthropic.decode(await anthropic.complete(request, live()))).toEqual({
      text: 'Let me check.',
      toolCalls: [
        { id: 'toolu_01', name: 'lookup', arguments: { q: 'nats', limit: 3 } },
        { id: 'toolu_02', name: 'refund', arguments: { amount: 5 } },
      ],
      stopReason: 'tool_use',
      usage: { promptTokens: 120, completionTokens: 7, totalTokens: 127 },
    });
  });

  it('normalises the stop reasons', async () => {
    const reasons: [string, string][] = [
      ['end_turn', 'end'],
      ['stop_sequence', 'end'],
      ['max_tokens', 'max_tokens'],
      ['refusal', 'refusal'],
      ['pause_turn', 'other'],
    ];
    const server = await messagesServer((i, _req, res) => send(res, 200, message([{ type: 'text', text: 'x' }], reasons[i]![0])));
    const anthropic = provider(server.baseUrl);
    for (const [, expected] of reasons) expect(anthropic.decode(await anthropic.complete(request, live())).stopReason).toBe(expected);
  });

  it('retries a 429 after at least its retry-after delay, then returns the success', async () => {
    const server = await messagesServer((i, _req, res) =>
      i === 0 ? send(res, 429, errorBody('rate_limit_error', 'slow down'), { 'retry-after': '2' }) : send(res, 200, message([{ type: 'text', text: 'ok' }], 'end_turn')),
    );
    const { sleeps, sleep } = recordingSleep();

    await provider(server.baseUrl, { sleep, backoff: { baseMs: 10, maxMs: 10 } }).complete(request, live());

    expect(server.seen).toHaveLength(2);
    expect(sleeps).toEqual([2_000]);
  });

  it('surfaces a RateLimitError with retryAfterMs when the 429s outlast its attempts', async () => {
    const server = await messagesServer((_i, _req, res) => send(res, 429, errorBody('rate_limit_error', 'slow down'), { 'retry-after': '3' }));

    const error = await failure(provider(server.baseUrl, { maxAttempts: 2 }).complete(request, live()));

    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(3_000);
    expect(server.seen).toHaveLength(2);
  });

  it('retries 529 overloaded with backoff and surfaces ServerError 529 once attempts are exhausted', async () => {
    const server = await messagesServer((_i, _req, res) => send(res, 529, errorBody('overloaded_error', 'Overloaded')));
    const { sleeps, sleep } = recordingSleep();

    const error = await failure(provider(server.baseUrl, { sleep, random: () => 0.5, maxAttempts: 3, backoff: { baseMs: 100, maxMs: 1_000 } }).complete(request, live()));

    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(529);
    expect((error as ServerError).message).toContain('Overloaded');
    expect(server.seen).toHaveLength(3);
    expect(sleeps).toEqual([50, 100]);
  });

  it('fails a 400 at once with ProviderRequestError, never retried', async () => {
    const server = await messagesServer((_i, _req, res) => send(res, 400, errorBody('invalid_request_error', 'max_tokens: must be positive')));
    const { sleeps, sleep } = recordingSleep();

    const error = await failure(provider(server.baseUrl, { sleep }).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderRequestError);
    expect(error).not.toBeInstanceOf(ProviderError);
    expect((error as ProviderRequestError).status).toBe(400);
    expect(server.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('fails malformed 2xx bodies with ProviderRequestError, without retrying: not JSON, not a message, no content', async () => {
    const bodies = ['<html>captive portal</html>', errorBody('api_error', 'odd'), JSON.stringify({ type: 'message', role: 'assistant' })];
    const server = await messagesServer((i, _req, res) => send(res, 200, bodies[i]!));
    for (const expected of ['is not JSON', 'is not a message', 'has no content array']) {
      const error = await failure(provider(server.baseUrl).complete(request, live()));
      expect(error).toBeInstanceOf(ProviderRequestError);
      expect((error as Error).message).toContain(expected);
    }
    expect(server.seen).toHaveLength(3);
  });

  it('stops at once when the caller aborts, and never shows its key', async () => {
    const server = await messagesServer(() => undefined);
    const controller = new AbortController();
    const anthropic = provider(server.baseUrl);
    const pending = failure(anthropic.complete(request, { signal: controller.signal }));
    const reason = new Error('activation timed out');
    setImmediate(() => controller.abort(reason));
    expect(await pending).toBe(reason);
    expect(inspect(anthropic, { depth: 5 })).not.toContain(API_KEY);
    expect(JSON.stringify(anthropic)).not.toContain(API_KEY);
  });
});
