// The provider is an HTTP edge, so it is tested against a real local chat-completions server: the wire is the contract.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError, ProviderRequestError, ProviderTimeout, RateLimitError, ServerError } from '#core';
import type { ModelRequest } from '#core';
import { chatCompletionJson } from './chat-completion-json.js';
import { ProviderConfigError } from './errors.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';
import type { OpenAiCompatibleProviderOptions } from './openai-compatible-provider.js';
import { Secret } from './secret.js';

const API_KEY = 'sk-test-5f1c9a7e2b4d4c08a1e3';

interface SeenRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers the n-th request (0-based); may leave it hanging by never ending `response`. */
type Script = (index: number, request: SeenRequest, response: ServerResponse) => void;

interface ChatServer {
  readonly baseUrl: string;
  readonly seen: SeenRequest[];
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function chatServer(script: Script): Promise<ChatServer> {
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
  return { baseUrl: `http://127.0.0.1:${port}/v1`, seen };
}

function send(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

const okBody = (text: string): string => chatCompletionJson({ text, model: 'gpt-test' });

const request: ModelRequest = {
  model: 'gpt-test',
  messages: [{ role: 'user', content: 'hi' }],
};

function recordingSleep(): { sleeps: number[]; sleep: (ms: number) => Promise<void> } {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms) => void sleeps.push(ms) };
}

function provider(baseUrl: string, options: Partial<OpenAiCompatibleProviderOptions> = {}): OpenAiCompatibleProvider {
  return new OpenAiCompatibleProvider({ baseUrl, apiKey: new Secret(API_KEY), sleep: async () => {}, random: () => 0, ...options });
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

describe('OpenAiCompatibleProvider', () => {
  it('posts the chat-completions protocol request and returns the response body verbatim', async () => {
    const pretty = JSON.stringify(JSON.parse(okBody('hello there')), null, 2) + '\n';
    const server = await chatServer((_i, _req, res) => send(res, 200, pretty));
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];

    const body = await provider(server.baseUrl).complete(
      { ...request, tools, params: { temperature: 0.2, max_tokens: 64, model: 'ignored', stream: true } },
      live(),
    );

    expect(new TextDecoder().decode(body)).toBe(pretty);
    expect(server.seen).toHaveLength(1);
    const [seen] = server.seen;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/v1/chat/completions');
    expect(seen?.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      tools,
      temperature: 0.2,
      max_tokens: 64,
    });
  });

  it('sends no Authorization header when no key is configured, and tolerates a trailing slash in baseUrl', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 200, okBody('ok')));
    const keyless = new OpenAiCompatibleProvider({ baseUrl: `${server.baseUrl}/` });

    await keyless.complete(request, live());

    expect(server.seen[0]?.url).toBe('/v1/chat/completions');
    expect(server.seen[0]?.headers['authorization']).toBeUndefined();
  });

  it('decodes what it returned into text and usage', async () => {
    const usage = { promptTokens: 5, completionTokens: 2, totalTokens: 7 };
    const server = await chatServer((_i, _req, res) => send(res, 200, chatCompletionJson({ text: 'done', model: 'gpt-test', usage })));
    const openai = provider(server.baseUrl);

    expect(openai.decode(await openai.complete(request, live()))).toEqual({ text: 'done', usage, stopReason: 'end' });
  });

  it('retries a 429 after at least its Retry-After delay, then returns the success', async () => {
    const server = await chatServer((i, _req, res) =>
      i === 0 ? send(res, 429, '{"error":{"message":"slow down"}}', { 'retry-after': '1' }) : send(res, 200, okBody('after wait')),
    );
    const { sleeps, sleep } = recordingSleep();

    const body = await provider(server.baseUrl, { sleep, random: () => 0, backoff: { baseMs: 10, maxMs: 10 } }).complete(request, live());

    expect(new TextDecoder().decode(body)).toBe(okBody('after wait'));
    expect(server.seen).toHaveLength(2);
    expect(sleeps).toEqual([1_000]);
  });

  it('resolves a Retry-After HTTP-date against the injected clock', async () => {
    const server = await chatServer((i, _req, res) =>
      i === 0 ? send(res, 429, '', { 'retry-after': new Date(5_000).toUTCString() }) : send(res, 200, okBody('ok')),
    );
    const { sleeps, sleep } = recordingSleep();

    await provider(server.baseUrl, { sleep, now: () => 2_000 }).complete(request, live());

    expect(sleeps).toEqual([3_000]);
  });

  it('surfaces a RateLimitError carrying retryAfterMs when the 429s outlast its attempts', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 429, '', { 'retry-after': '2' }));

    const error = await failure(provider(server.baseUrl, { maxAttempts: 2 }).complete(request, live()));

    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(2_000);
    expect(server.seen).toHaveLength(2);
  });

  it('retries 5xx with full-jitter backoff and surfaces ServerError once attempts are exhausted', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 503, '<html>upstream down</html>', { 'content-type': 'text/html' }));
    const { sleeps, sleep } = recordingSleep();

    const error = await failure(
      provider(server.baseUrl, { sleep, random: () => 0.5, maxAttempts: 3, backoff: { baseMs: 100, maxMs: 1_000 } }).complete(request, live()),
    );

    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).status).toBe(503);
    expect((error as ServerError).message).toContain('upstream down');
    expect(server.seen).toHaveLength(3);
    // uniform(0, min(100·2^(n-1), 1000)) at 0.5, and no wait after the last attempt
    expect(sleeps).toEqual([50, 100]);
  });

  it('fails a 400 with ProviderRequestError at once: one request, no backoff', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 400, '{"error":{"message":"max_tokens too large"}}'));
    const { sleeps, sleep } = recordingSleep();

    const error = await failure(provider(server.baseUrl, { sleep }).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderRequestError);
    expect(error).not.toBeInstanceOf(ProviderError);
    expect((error as ProviderRequestError).status).toBe(400);
    expect((error as ProviderRequestError).message).toContain('max_tokens too large');
    expect(server.seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('fails an undecodable 2xx body with ProviderRequestError, without retrying', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 200, '<html>captive portal</html>'));

    const error = await failure(provider(server.baseUrl).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderRequestError);
    expect((error as ProviderRequestError).status).toBe(200);
    expect(server.seen).toHaveLength(1);
  });

  it('turns a server that never answers into ProviderTimeout after each attempt times out', async () => {
    const server = await chatServer(() => {
      // never respond
    });

    const error = await failure(provider(server.baseUrl, { timeoutMs: 100, maxAttempts: 2 }).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderTimeout);
    expect(server.seen).toHaveLength(2);
  });

  it('times out a response whose body stalls after the headers', async () => {
    const server = await chatServer((_i, _req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":');
    });

    const error = await failure(provider(server.baseUrl, { timeoutMs: 100, maxAttempts: 1 }).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderTimeout);
  });

  it('stops promptly with the caller abort reason while a request is in flight, without retrying', async () => {
    const controller = new AbortController();
    const reason = new Error('activation abandoned');
    const server = await chatServer(() => controller.abort(reason));

    const started = performance.now();
    const error = await failure(provider(server.baseUrl).complete(request, { signal: controller.signal }));

    expect(error).toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.seen).toHaveLength(1);
  });

  it('rejects with the caller abort reason as given, even when it is not an Error', async () => {
    const controller = new AbortController();
    const server = await chatServer(() => controller.abort('worker shutting down'));

    await expect(provider(server.baseUrl).complete(request, { signal: controller.signal })).rejects.toBe('worker shutting down');
    expect(server.seen).toHaveLength(1);
  });

  it('stops promptly with the caller abort reason during a backoff wait', async () => {
    const controller = new AbortController();
    const reason = new Error('activation timed out');
    const server = await chatServer((_i, _req, res) => {
      send(res, 500, 'boom');
      setTimeout(() => controller.abort(reason), 20);
    });
    const openai = new OpenAiCompatibleProvider({ baseUrl: server.baseUrl, random: () => 0.99, backoff: { baseMs: 60_000, maxMs: 60_000 } });

    const started = performance.now();
    const error = await failure(openai.complete(request, { signal: controller.signal }));

    expect(error).toBe(reason);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(server.seen).toHaveLength(1);
  });

  it('sends nothing when the caller signal is already aborted', async () => {
    const server = await chatServer((_i, _req, res) => send(res, 200, okBody('ok')));
    const controller = new AbortController();
    controller.abort(new Error('already gone'));

    await expect(provider(server.baseUrl).complete(request, { signal: controller.signal })).rejects.toThrow('already gone');
    expect(server.seen).toHaveLength(0);
  });

  it('retries an unreachable endpoint as a retryable ProviderError', async () => {
    const server = await chatServer(() => {});
    const unreachable = server.baseUrl;
    const listening = servers.pop();
    listening?.closeAllConnections();
    await new Promise<void>((resolve) => listening?.close(() => resolve()));
    const { sleeps, sleep } = recordingSleep();

    const error = await failure(provider(unreachable, { sleep, maxAttempts: 2 }).complete(request, live()));

    expect(error).toBeInstanceOf(ProviderError);
    expect(sleeps).toHaveLength(1);
  });

  it('never reveals the API key in errors, even when the server echoes it, nor in JSON or inspect output', async () => {
    const server = await chatServer((_i, req, res) =>
      send(res, 401, JSON.stringify({ error: { message: `Incorrect API key provided: ${String(req.headers['authorization'])}` } })),
    );
    const options: OpenAiCompatibleProviderOptions = { baseUrl: server.baseUrl, apiKey: new Secret(API_KEY) };
    const openai = new OpenAiCompatibleProvider(options);

    const error = await failure(openai.complete(request, live()));

    expect(error).toBeInstanceOf(ProviderRequestError);
    const rendered = [
      (error as Error).message,
      String((error as Error).stack),
      inspect(error, { depth: 10 }),
      JSON.stringify(openai),
      inspect(openai, { depth: 10, showHidden: true }),
      JSON.stringify(options),
      inspect(options, { depth: 10, showHidden: true }),
      `${options.apiKey}`,
    ];
    for (const text of rendered) expect(text).not.toContain(API_KEY);
    expect((error as Error).message).toContain('[redacted]');
  });

  it('refuses malformed configuration at construction time', () => {
    expect(() => new OpenAiCompatibleProvider({ baseUrl: 'not a url' })).toThrow(ProviderConfigError);
    expect(() => new OpenAiCompatibleProvider({ baseUrl: 'ftp://example.test' })).toThrow(ProviderConfigError);
    expect(() => new OpenAiCompatibleProvider({ baseUrl: 'https://user:pw@example.test/v1' })).toThrow(ProviderConfigError);
    expect(() => new OpenAiCompatibleProvider({ baseUrl: 'https://example.test', maxAttempts: 0 })).toThrow(ProviderConfigError);
    expect(() => new OpenAiCompatibleProvider({ baseUrl: 'https://example.test', timeoutMs: 0 })).toThrow(ProviderConfigError);
  });
});
