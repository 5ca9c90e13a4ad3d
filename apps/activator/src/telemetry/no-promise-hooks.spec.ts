// Layer 1: tracing on never enables async_hooks promise hooks (decision 0076). On Node 20 the first
// AsyncLocalStorage run enables them for the whole process, for good, and every promise then pays for
// context propagation. The process's real tracing (startTracing: NodeSDK, batch span processor,
// the synchronous context manager) runs sampled activations and exports; then a probe asks whether
// promise hooks are on.
//
// The probe: with promise hooks enabled, a promise reaction runs with the promise it resolves as its
// async resource (`executionAsyncResource()` inside `.then` is the derived promise); without them
// Node does not track promises and the reaction sees the surrounding resource. Deterministic, no
// timing involved, and it cannot be switched back off: once on, the probe stays true. Vitest runs
// each spec file in a fresh process (pool: forks), so nothing before this file can have enabled them;
// the first test checks the probe itself can fail, in a worker thread (an isolate of its own).
import { executionAsyncResource } from 'node:async_hooks';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboxElement } from '#core';
import { startTracing, type Tracing } from '#telemetry';
import { tracedEchoRuntime } from '../testing/traced-echo-runtime.js';

/** True when promise hooks are enabled in this isolate (see the header). */
async function promiseHooksEnabled(): Promise<boolean> {
  const derived = Promise.resolve().then(() => [executionAsyncResource()]);
  const [resource] = await derived;
  return resource === derived;
}

const PROBE_SOURCE = `
const { executionAsyncResource, AsyncLocalStorage } = require('node:async_hooks');
const { parentPort } = require('node:worker_threads');
const probe = async () => { const d = Promise.resolve().then(() => [executionAsyncResource()]); return (await d)[0] === d; };
(async () => {
  const before = await probe();
  new AsyncLocalStorage().run({}, () => undefined);
  parentPort.postMessage({ before, after: await probe() });
})();
`;

const utf8 = new TextEncoder();

describe('tracing on', () => {
  let collector: Server;
  const exported: string[] = [];
  let tracing: Tracing;

  beforeAll(async () => {
    // A collector that accepts every export: the batch processor's export path runs for real.
    collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] };
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) exported.push(...scope.spans.map((span) => span.name));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const { port } = collector.address() as AddressInfo;
    // The SDK's exporter reads its endpoint from process.env (this spec file has a process of its own).
    Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '10' });
    tracing = startTracing({ serviceName: 'activator', env: process.env });
  });

  afterAll(async () => {
    await tracing?.shutdown();
    collector?.close();
  });

  it('the probe detects promise hooks once an AsyncLocalStorage has run (checked in an isolate of its own)', async () => {
    const worker = new Worker(PROBE_SOURCE, { eval: true });
    const [answer] = (await once(worker, 'message')) as [{ before: boolean; after: boolean }];
    await worker.terminate();
    expect(answer).toEqual({ before: false, after: true });
  });

  it('never enables promise hooks: sampled activations with child spans, exported, leave them off', async () => {
    expect(tracing.enabled).toBe(true);
    expect(await promiseHooksEnabled()).toBe(false);
    // Child spans (AGENTS_TRACE_STEPS=spans): the mode with the most SDK work per activation.
    const runtime = tracedEchoRuntime({ steps: 'spans' });
    const sampled = (seq: number): InboxElement => ({
      inboxSeq: seq,
      entityKey: utf8.encode('k'),
      eventTimeMs: 1_000,
      payload: { kind: 'event', event: utf8.encode(`hello ${seq}`) },
      headers: [{ name: 'traceparent', value: `00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033${String(seq).padStart(2, '0')}-01` }],
      deliveries: 1,
    });
    const scope = { stateKey: 'echo.k', agent: 'echo', ownerEpoch: 1, signal: new AbortController().signal };
    for (let seq = 1; seq <= 5; seq += 1) {
      const outcome = await runtime.process(sampled(seq), scope);
      expect(outcome.kind).toBe('applied');
    }
    // The spans really went out, children included (the batch processor's export ran, with its suppressTracing scope).
    await tracing.shutdown(5_000);
    expect(exported.filter((name) => name === 'activate echo')).toHaveLength(5);
    expect(exported.filter((name) => name === 'state.commit')).toHaveLength(5);
    expect(exported.filter((name) => name === 'outbox.publish')).toHaveLength(5);
    expect(await promiseHooksEnabled()).toBe(false);
  });
});
