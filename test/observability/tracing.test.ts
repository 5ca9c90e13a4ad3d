// Layer 3: one logical activation is one trace across processes. Real ingress, activator, effector
// and memory-store processes export spans over OTLP/HTTP (JSON encoding) to a real receiver on a
// loopback port; the suite drives suspend → effector → resume through the traced fixture agent
// (model calls, working memory, a long-term save, a tool intent) and asserts the span tree, parent
// links included. Then a replayed intent, and a collector that is down: activations still complete
// and the dropped spans are counted.
import { createServer } from 'node:net';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolIntent } from '#core';
import { ingestRootIds } from '#telemetry';
import { collect, readStream, startCluster, type TestCluster } from '../harness/index.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { eventually, opsUrl, scrape, value } from './prometheus-text.js';

// Spans carry a digest of the key by default (AGENTS_TRACE_KEYS=digest), never the key itself.
const K1_DIGEST = createHash('sha256').update('k-1').digest('hex').slice(0, 32);

const text = new TextDecoder();
const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** A W3C traceparent for a publisher span of a fresh trace. */
function publisherContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Services export spans to `receiver` (OTLP/HTTP JSON), in batches every 200 ms. */
function exportingTo(receiver: OtlpReceiver): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200' };
}

/** The one span matching `pick` (fails listing the candidates otherwise). */
function one(spans: readonly ReceivedSpan[], what: string, pick: (s: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(pick);
  if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}: ${spans.map((s) => `${s.service}:${s.name}(${s.spanId}<-${s.parentSpanId})`).join(', ')}`);
  return found[0] as ReceivedSpan;
}

const childrenOf = (spans: readonly ReceivedSpan[], parent: ReceivedSpan): string[] =>
  spans
    .filter((s) => s.parentSpanId === parent.spanId)
    .map((s) => `${s.service}:${s.name}`)
    .sort();

/** The state and outbox steps recorded as events of an activation span, in order. */
const stepsOf = (activation: ReceivedSpan): string[] => activation.events.map((e) => e.name).filter((n) => n.startsWith('state.') || n === 'outbox.publish');

describe('tracing: one trace per logical activation', () => {
  let receiver: OtlpReceiver;
  let cluster: TestCluster;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/traced.agent.mjs', 'dist/examples/refund/refund.agent.js'],
      modelScript: 'test/fixtures/models/echo-model.mjs',
      services: ['memory-store', 'activator', 'ingress', 'effector'],
      env: {
        AGENTS_OPS_PORT: '0',
        AGENTS_LONGTERM_URI: 'memory://',
        AGENTS_TOOL_MODULES: 'test/fixtures/tools/ledger.tools.mjs,dist/examples/refund/refund.tool.js',
        ...exportingTo(receiver),
      },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  });

  it('links publisher → ingress → activation (model call, flush; commit and publish as its events) → effector → ingress → resumed activation', async () => {
    const publisher = publisherContext();
    const outputs = await collect(cluster.client.nc, 'agents.output.traced.k-1');
    await cluster.client.publishEvent('traced', 'k-1', { cents: 250 }, { traceparent: publisher.traceparent });
    const [output] = await outputs.waitForCount(1, 30_000);
    expect(JSON.parse(text.decode(output!.data))).toEqual({ status: 'ok', reply: 'echo:charged: ok' });
    outputs.close();

    const inTrace = (spans: readonly ReceivedSpan[]): ReceivedSpan[] => spans.filter((s) => s.traceId === publisher.traceId);
    const resumed = (s: ReceivedSpan): boolean => s.name === 'activate traced' && s.attributes['agents.resumed'] === true;
    // Each process exports on its own schedule: wait until every span of the flow has arrived.
    const expected = ['ingest events traced', 'ingest results traced', 'execute charge', 'tool charge', 'longterm.flush', 'memory upsert'];
    await receiver.waitFor((spans) => {
      const trace = inTrace(spans);
      const last = trace.find(resumed);
      return (
        expected.every((name) => trace.some((s) => s.name === name)) &&
        trace.filter((s) => s.name === 'activate traced').length === 2 &&
        last !== undefined &&
        trace.some((s) => s.name === 'chat fake-1' && s.parentSpanId === last.spanId)
      );
    }, 'every span of the flow');
    const spans = inTrace(receiver.spans);

    // publisher → ingress (event)
    const ingestEvent = one(spans, 'ingest of the event', (s) => s.name === 'ingest events traced');
    expect(ingestEvent).toMatchObject({ service: 'ingress', kind: KIND.consumer, parentSpanId: publisher.spanId });
    expect(ingestEvent.attributes).toMatchObject({ 'agents.agent': 'traced', 'agents.key': K1_DIGEST, 'agents.outcome': 'forwarded', 'agents.redelivered': false });

    // ingress → the activation that suspended
    const start = one(spans, 'starting activation', (s) => s.name === 'activate traced' && s.attributes['agents.resumed'] === false);
    expect(start).toMatchObject({ service: 'activator', kind: KIND.consumer, parentSpanId: ingestEvent.spanId });
    expect(start.attributes).toMatchObject({
      'agents.agent': 'traced',
      'agents.key': K1_DIGEST,
      'agents.seq': 0,
      'agents.status': 'suspended',
      'agents.outcome': 'applied',
      'agents.element.kind': 'event',
      'agents.intents': 1,
      'agents.model.calls': 1,
      'agents.model.cache_hits': 0,
      'agents.attempts': 1,
      'agents.retried': false,
      'agents.redelivered': false,
    });
    expect(start.attributes['agents.memory.bytes']).toBeGreaterThan(0);
    expect(childrenOf(spans, start)).toEqual(['activator:chat fake-1', 'activator:longterm.flush', 'effector:execute charge']);
    // Its state and outbox steps are events of its own span (AGENTS_TRACE_STEPS=events, the default), in the order they ran.
    expect(stepsOf(start)).toEqual(['state.load', 'state.commit', 'outbox.publish']);
    const commit = start.events.find((e) => e.name === 'state.commit');
    expect(commit?.attributes).toMatchObject({ 'agents.state.revision': expect.any(Number), 'agents.state.bytes': expect.any(Number), 'agents.duration_ms': expect.any(Number) });
    expect(commit?.timeNanos).toBeGreaterThanOrEqual(start.startNanos);
    const model = one(spans, 'first model call', (s) => s.name === 'chat fake-1' && s.parentSpanId === start.spanId);
    expect(model).toMatchObject({ kind: KIND.client });
    expect(model.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'fake', 'gen_ai.request.model': 'fake-1', 'agents.model.cache_hit': false, 'agents.model.step': 0 });
    const flush = one(spans, 'flush', (s) => s.name === 'longterm.flush');
    expect(flush.attributes['agents.longterm.records']).toBe(1);
    // activation → memory-store (the flush's request carries the trace context)
    const upsert = one(spans, 'memory-store upsert', (s) => s.name === 'memory upsert');
    expect(upsert).toMatchObject({ service: 'memory-store', kind: KIND.server, parentSpanId: flush.spanId });
    expect(upsert.attributes).toMatchObject({ 'agents.memory.op': 'upsert' });
    expect(start.events.find((e) => e.name === 'outbox.publish')?.attributes).toMatchObject({ 'agents.outbox.entries': 1, 'agents.intents': 1 });

    // activation → effector (through the intent message) → tool
    const execute = one(spans, 'tool execution', (s) => s.name === 'execute charge');
    expect(execute).toMatchObject({ service: 'effector', kind: KIND.consumer, parentSpanId: start.spanId });
    expect(execute.attributes).toMatchObject({ 'agents.tool': 'charge', 'agents.agent': 'traced', 'agents.key': K1_DIGEST, 'agents.outcome': 'published', 'agents.result.status': 'ok', 'agents.tool.executed': true, 'agents.tool.attempts': 1 });
    expect(one(spans, 'tool run', (s) => s.name === 'tool charge').parentSpanId).toBe(execute.spanId);

    // effector → ingress (the result) → the resumed activation
    const ingestResult = one(spans, 'ingest of the result', (s) => s.name === 'ingest results traced');
    expect(ingestResult).toMatchObject({ service: 'ingress', parentSpanId: execute.spanId });
    const resume = one(spans, 'resumed activation', resumed);
    expect(resume).toMatchObject({ service: 'activator', parentSpanId: ingestResult.spanId });
    expect(resume.attributes).toMatchObject({ 'agents.seq': 0, 'agents.status': 'completed', 'agents.element.kind': 'result', 'agents.outputs': 1, 'agents.model.calls': 1 });
    expect(childrenOf(spans, resume)).toEqual(['activator:chat fake-1']);
    expect(stepsOf(resume).filter((n) => n !== 'state.load')).toEqual(['state.commit', 'outbox.publish']);
    expect(resume.events.find((e) => e.name === 'outbox.publish')?.attributes).toMatchObject({ 'agents.outbox.entries': expect.any(Number), 'agents.intents': 0 });

    // every span of the flow is in the publisher's trace, and each process named itself
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['ingress', 'activator', 'effector', 'memory-store']));
    expect(receiver.rejected).toBe(0);
  });

  it('puts a replayed intent in the same trace, marked as a dedup that ran nothing', async () => {
    const publisher = publisherContext();
    const outputs = await collect(cluster.client.nc, 'agents.output.traced.k-2');
    await cluster.client.publishEvent('traced', 'k-2', { cents: 5 }, { traceparent: publisher.traceparent });
    await outputs.waitForCount(1, 30_000);
    outputs.close();
    const [intent] = (await readStream(cluster.client.nc, 'AGENTS_INTENTS')).filter((m) => m.subject === 'agents.intents.traced.charge' && m.header('traceparent')?.includes(publisher.traceId));
    expect(intent).toBeDefined();

    // Replay the stored intent as a consumer reset would: same bytes, same headers.
    const h = natsHeaders();
    h.set('traceparent', intent!.header('traceparent')!);
    await cluster.client.js.publish(intent!.subject, intent!.data, { headers: h, msgID: `${intent!.msgId}:replay` });
    const spans = await receiver.waitFor(
      (all) => all.filter((s) => s.traceId === publisher.traceId && s.name === 'execute charge').length === 2 && all.some((s) => s.traceId === publisher.traceId && s.attributes['agents.deduped'] === true),
      'both executions of the intent',
    );
    const executions = spans.filter((s) => s.traceId === publisher.traceId && s.name === 'execute charge');
    expect(executions).toHaveLength(2);
    const [first, replay] = [executions.find((s) => s.attributes['agents.deduped'] !== true), executions.find((s) => s.attributes['agents.deduped'] === true)];
    expect(replay?.parentSpanId).toBe(first?.parentSpanId);
    expect(replay?.attributes).toMatchObject({ 'agents.outcome': 'republished', 'agents.tool': 'charge' });
    expect(spans.filter((s) => s.name === 'tool charge' && s.parentSpanId === replay?.spanId)).toEqual([]);
  });

  it('continues the asking activation\'s trace when a decision is published without trace context', async () => {
    const publisher = publisherContext();
    const outputs = await collect(cluster.client.nc, 'agents.output.refund.order-9');
    await cluster.client.publishEvent('refund', 'order-9', { orderId: 'o-9', amount: 400 }, { traceparent: publisher.traceparent });
    let request;
    for (let i = 0; i < 200 && request === undefined; i += 1) {
      [request] = await readStream(cluster.client.nc, 'AGENTS_INTENTS', 'agents.approval-requests.refund.order-9');
      if (request === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(request?.header('traceparent')).toContain(publisher.traceId);
    const askedFrom = request!.header('traceparent')!.split('-')[2];
    // As the CLI's `approve` does it: no traceparent of its own.
    await cluster.client.publishApproval('refund', 'order-9', { intentId: decodeToolIntent(request!.data).intentId, approved: true, approver: 'ada', reason: '', decidedAtMs: Date.now() });
    const [output] = await outputs.waitForCount(1, 30_000);
    outputs.close();
    expect(JSON.parse(text.decode(output!.data))).toMatchObject({ status: 'refunded', orderId: 'o-9' });

    const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === publisher.traceId && s.name === 'ingest approvals refund'), 'the decision in the trace of the request');
    const decision = one(spans, 'ingest of the decision', (s) => s.traceId === publisher.traceId && s.name === 'ingest approvals refund');
    expect(decision.parentSpanId).toBe(askedFrom);
  });
});

describe('tracing at a parent-based sampling ratio', () => {
  let receiver: OtlpReceiver;
  let cluster: TestCluster;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs'],
      services: ['activator', 'ingress'],
      env: {
        AGENTS_OPS_PORT: '0',
        ...exportingTo(receiver),
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.5',
      },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver?.close();
  });

  it('traces the sampled-in events end to end and records nothing of the sampled-out ones, whose outputs still carry their derived trace id', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.counter.>');
    const events = 40;
    for (let n = 0; n < events; n += 1) await cluster.client.publishEvent('counter', `ratio-${n}`, { n });
    await outputs.waitForCount(events, 60_000);
    outputs.close();

    // Each event's root trace id is derived from its ingest sequence, sampled in or out.
    const ingested = await readStream(cluster.client.nc, 'AGENTS_INGEST');
    const seqOf = new Map(ingested.map((m) => [(JSON.parse(text.decode(m.data)) as { n: number }).n, m.seq]));
    const traces = outputs.messages.map((msg) => {
      const { n } = JSON.parse(text.decode(msg.data)) as { n: number };
      const [, traceId, , flags] = (msg.headers?.get('traceparent') ?? '').split('-');
      return { n, traceId, sampled: flags === '01', expected: ingestRootIds('AGENTS_INGEST', seqOf.get(n)!).traceId };
    });
    for (const t of traces) expect(t.traceId, `event ${t.n}`).toBe(t.expected);
    const sampledIn = traces.filter((t) => t.sampled);
    const sampledOut = traces.filter((t) => !t.sampled);
    // At a 0.5 ratio both groups are non-empty unless 40 independent draws all agree (2^-39).
    expect(sampledIn.length).toBeGreaterThan(0);
    expect(sampledOut.length).toBeGreaterThan(0);

    const spans = await receiver.waitFor(
      (all) => sampledIn.every((t) => ['ingest events counter', 'activate counter'].every((name) => all.some((s) => s.traceId === t.traceId && s.name === name))),
      'the ingest and activation spans of every sampled-in event',
    );
    for (const t of sampledIn) {
      const ingest = one(spans, `ingest span of event ${t.n}`, (s) => s.traceId === t.traceId && s.name === 'ingest events counter');
      expect(ingest.parentSpanId).toBe('');
      const activation = one(spans, `activation span of event ${t.n}`, (s) => s.traceId === t.traceId && s.name === 'activate counter');
      expect(activation.parentSpanId).toBe(ingest.spanId);
    }
    const outIds = new Set(sampledOut.map((t) => t.traceId));
    expect(spans.filter((s) => outIds.has(s.traceId))).toEqual([]);
  });
});

describe('tracing with the collector down', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    // A port nothing listens on: every export is refused.
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    cluster = await startCluster({
      agentModules: ['test/fixtures/agents/counter.agent.mjs'],
      services: ['activator', 'ingress'],
      env: {
        AGENTS_OPS_PORT: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_TIMEOUT: '500',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_BSP_MAX_QUEUE_SIZE: '64',
      },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('completes every activation and counts the spans it could not export', async () => {
    const outputs = await collect(cluster.client.nc, 'agents.output.counter.>');
    const keys = Array.from({ length: 10 }, (_, i) => `down-${i}`);
    for (let round = 0; round < 3; round += 1) for (const key of keys) await cluster.client.publishEvent('counter', key, { n: round });
    await outputs.waitForCount(30, 60_000);
    outputs.close();
    for (const name of ['activator', 'ingress'] as const) {
      const ops = await opsUrl(cluster.services.get(name)!);
      const samples = await eventually(() => scrape(ops), (s) => value(s, 'agents_trace_spans_dropped_total') > 0, `${name} counting dropped spans`);
      expect(value(samples, 'agents_trace_spans_exported_total')).toBe(0);
    }
  });
});
