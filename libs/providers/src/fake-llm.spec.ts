// FakeLlm is the model every other suite stands on, so its scripting contract is pinned here, in isolation.
import { describe, expect, it } from 'vitest';
import { ProviderError, RateLimitError, ServerError, TerminalError } from '#core';
import type { ModelRequest } from '#core';
import { UnmatchedRequestError } from './errors.js';
import { failThenSucceed, raiseError, respondWith, respondWithChat } from './fake-llm-behaviours.js';
import { matchAny, matchContains, matchModel, matchWhere } from './fake-llm-matchers.js';
import { FakeLlm } from './fake-llm.js';

const utf8 = new TextDecoder();
const instant = async (): Promise<void> => {};
const live = (): { signal: AbortSignal } => ({ signal: new AbortController().signal });

function request(model: string, content = 'hello', params?: ModelRequest['params']): ModelRequest {
  return { model, messages: [{ role: 'user', content }], ...(params ? { params } : {}) };
}

async function text(fake: FakeLlm, req: ModelRequest): Promise<string> {
  return utf8.decode(await fake.complete(req, live()));
}

describe('FakeLlm', () => {
  it('answers with the first matching rule even when a later rule also matches', async () => {
    const fake = new FakeLlm({ delay: instant })
      .on(matchModel('a'), respondWith('first'))
      .on(matchAny(), respondWith('catch-all'))
      .on(matchModel('a'), respondWith('shadowed'));

    expect(await text(fake, request('a'))).toBe('first');
    expect(await text(fake, request('b'))).toBe('catch-all');
  });

  it('takes rules from the constructor before rules appended with on()', async () => {
    const fake = new FakeLlm({ rules: [[matchAny(), respondWith('constructor')]], delay: instant }).on(
      matchAny(),
      respondWith('appended'),
    );
    expect(await text(fake, request('m'))).toBe('constructor');
  });

  it('matches substrings of the canonical request JSON regardless of key insertion order', async () => {
    const fake = new FakeLlm({ delay: instant })
      .on(matchContains('"max_tokens":5,"temperature":0'), respondWith('canonical'))
      .on(matchAny(), respondWith('other'));

    expect(await text(fake, request('m', 'x', { temperature: 0, max_tokens: 5 }))).toBe('canonical');
    expect(await text(fake, request('m', 'x', { max_tokens: 5, temperature: 0 }))).toBe('canonical');
    expect(await text(fake, request('m', 'x', { max_tokens: 6, temperature: 0 }))).toBe('other');
  });

  it('applies matchWhere predicates and computes responses from the request', async () => {
    const fake = new FakeLlm({ delay: instant }).on(
      matchWhere((req) => req.messages.length === 2, 'two messages'),
      respondWith((req) => `echo ${req.model}`),
    );
    const twoMessages: ModelRequest = { model: 'echoer', messages: ['a', 'b'] };

    expect(await text(fake, twoMessages)).toBe('echo echoer');
    await expect(fake.complete(request('echoer'), live())).rejects.toThrow(/two messages/);
  });

  it('fails closed with a terminal UnmatchedRequestError that is not a ProviderError', async () => {
    const fake = new FakeLlm({ delay: instant }).on(matchModel('known'), respondWith('ok'));

    const error = await fake.complete(request('unknown'), live()).catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(UnmatchedRequestError);
    expect(error).toBeInstanceOf(TerminalError);
    expect(error).not.toBeInstanceOf(ProviderError);
    expect((error as UnmatchedRequestError).message).toContain('matchModel("known")');
    expect((error as UnmatchedRequestError).request).toEqual(request('unknown'));
  });

  it('fails the very first call when it has no rules', async () => {
    const fake = new FakeLlm({ delay: instant });
    await expect(fake.complete(request('m'), live())).rejects.toThrow(UnmatchedRequestError);
    expect(fake.callCount).toBe(1);
  });

  it('records a request before the scripted failure it raises', async () => {
    const fake = new FakeLlm({ delay: instant }).on(matchAny(), raiseError(new ServerError(503, 'down')));

    await expect(fake.complete(request('m', 'first'), live())).rejects.toThrow(ServerError);
    await expect(fake.complete(request('m', 'second'), live())).rejects.toThrow(ServerError);

    expect(fake.callCount).toBe(2);
    expect(fake.requests).toEqual([request('m', 'first'), request('m', 'second')]);
  });

  it('records a request before its latency elapses', async () => {
    let release: () => void = () => {};
    const fake = new FakeLlm({ delay: () => new Promise<void>((resolve) => (release = resolve)) }).on(
      matchAny(),
      respondWith('late', { latencyMs: 1_000 }),
    );

    const pending = fake.complete(request('m'), live());
    expect(fake.callCount).toBe(1);
    release();
    expect(utf8.decode(await pending)).toBe('late');
  });

  it('keeps a snapshot of each request, unaffected by later mutation of the caller object', async () => {
    const fake = new FakeLlm({ delay: instant }).on(matchAny(), respondWith('ok'));
    const messages = [{ role: 'user', content: 'original' }];
    await fake.complete({ model: 'm', messages }, live());
    messages[0]!.content = 'mutated';
    expect(fake.requests[0]).toEqual({ model: 'm', messages: [{ role: 'user', content: 'original' }] });
  });

  it('keeps no record of requests when told not to (a long-running service), yet answers and counts the same', async () => {
    const fake = new FakeLlm({ delay: instant, recordCalls: false }).on(matchModel('a'), respondWith('for a')).on(matchAny(), respondWith('other'));
    expect(await text(fake, request('a'))).toBe('for a');
    expect(await text(fake, request('b'))).toBe('other');
    expect(fake.callCount).toBe(2);
    expect(fake.requests).toEqual([]);
    expect(fake.callsMatching(matchAny())).toEqual([]);
  });

  it('counts the calls a matcher selects', async () => {
    const fake = new FakeLlm({ delay: instant }).on(matchAny(), respondWith('ok'));
    for (const model of ['a', 'b', 'a']) await fake.complete(request(model), live());

    expect(fake.callsMatching(matchModel('a'))).toHaveLength(2);
    expect(fake.callsMatching(matchContains('"model":"b"'))).toEqual([request('b')]);
  });

  it('fails exactly `times` calls routed to a failThenSucceed rule, then succeeds', async () => {
    const fake = new FakeLlm({ delay: instant })
      .on(matchModel('other'), respondWith('untouched'))
      .on(matchAny(), failThenSucceed({ error: new RateLimitError('slow down'), times: 2, then: 'recovered' }));

    await expect(fake.complete(request('flaky'), live())).rejects.toThrow(RateLimitError);
    expect(await text(fake, request('other'))).toBe('untouched');
    await expect(fake.complete(request('flaky'), live())).rejects.toThrow(RateLimitError);
    expect(await text(fake, request('flaky'))).toBe('recovered');
    expect(await text(fake, request('flaky'))).toBe('recovered');
    expect(fake.callCount).toBe(5);
  });

  it('awaits latency only through the injected delay hook, with the caller signal', async () => {
    const waits: Array<{ ms: number; signal: AbortSignal }> = [];
    const fake = new FakeLlm({ delay: async (ms, signal) => void waits.push({ ms, signal }) })
      .on(matchModel('slow'), respondWithChat('ok', { latencyMs: 250 }))
      .on(matchModel('failing'), raiseError(new ServerError(500, 'boom'), { latencyMs: 40 }))
      .on(matchAny(), respondWith('fast'));
    const { signal } = live();

    await fake.complete(request('slow'), { signal });
    await fake.complete(request('fast'), { signal });
    await expect(fake.complete(request('failing'), { signal })).rejects.toThrow(ServerError);

    expect(waits.map((wait) => wait.ms)).toEqual([250, 40]);
    expect(waits[0]?.signal).toBe(signal);
  });

  it('rejects with the abort reason, without answering, when the signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('activation abandoned');
    controller.abort(reason);
    let answered = false;
    const fake = new FakeLlm({ delay: instant }).on(
      matchAny(),
      respondWith(() => {
        answered = true;
        return 'never';
      }),
    );

    await expect(fake.complete(request('m'), { signal: controller.signal })).rejects.toBe(reason);
    expect(answered).toBe(false);
    expect(fake.callCount).toBe(1);
  });

  it('rejects promptly when aborted during latency with the default delay', async () => {
    const controller = new AbortController();
    const reason = new Error('activation timed out');
    const fake = new FakeLlm().on(matchAny(), respondWith('too late', { latencyMs: 60_000 }));

    const pending = fake.complete(request('m'), { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 5);

    const started = performance.now();
    await expect(pending).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('never delivers a response once the signal aborted, even if the delay hook ignores aborts', async () => {
    const controller = new AbortController();
    const fake = new FakeLlm({
      delay: async () => {
        controller.abort(new Error('gone'));
      },
    }).on(matchAny(), respondWith('ok', { latencyMs: 10 }));

    await expect(fake.complete(request('m'), { signal: controller.signal })).rejects.toThrow('gone');
  });

  it('decodes its chat bodies into text and usage, and any other body as UTF-8 text', async () => {
    const usage = { promptTokens: 7, completionTokens: 3, totalTokens: 10 };
    const fake = new FakeLlm({ delay: instant })
      .on(matchModel('chat'), respondWithChat((req) => `hi from ${req.model}`, { usage }))
      .on(matchAny(), respondWith('plain {not json'));

    expect(fake.decode(await fake.complete(request('chat'), live()))).toEqual({ text: 'hi from chat', usage, stopReason: 'end' });
    expect(fake.decode(await fake.complete(request('raw'), live()))).toEqual({ text: 'plain {not json' });
  });

  it('produces byte-identical bodies for the same calls in the same order', async () => {
    const script = (): FakeLlm =>
      new FakeLlm({ delay: instant }).on(matchAny(), respondWithChat((req) => JSON.stringify(req.messages)));
    const [first, second] = [script(), script()];

    const a = await first.complete(request('m', 'same'), live());
    const b = await second.complete(request('m', 'same'), live());

    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('hands each caller its own copy of a scripted byte body', async () => {
    const fake = new FakeLlm({ delay: instant }).on(matchAny(), respondWith(new Uint8Array([1, 2, 3])));
    const first = await fake.complete(request('m'), live());
    first[0] = 99;
    expect([...(await fake.complete(request('m'), live()))]).toEqual([1, 2, 3]);
  });
});
