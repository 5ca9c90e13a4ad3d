// Layer 1: the activation span is the parent of everything the commit publishes, and re-parenting happens once per delivery — an in-place retry commits byte-identical bytes inside one span that says it retried. Real OpenTelemetry SDK (in-memory exporter), in-memory ports, no broker.
import { createHash } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryStateStore, type InboxElement, type OutboxEntryDoc } from '#core';
import { RuntimeMetrics, SynchronousContextManager, type TraceStepsMode } from '#telemetry';
import { tracedEchoRuntime } from '../testing/traced-echo-runtime.js';
import type { TracedActorRuntime } from './traced-actor-runtime.js';

const utf8 = new TextEncoder();
const PUBLISHER = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };

function runtime(store: InMemoryStateStore, published: OutboxEntryDoc[], metrics: RuntimeMetrics, parentBased = false, steps: TraceStepsMode = 'events'): TracedActorRuntime {
  return tracedEchoRuntime({ store, published, metrics, partition: 3, parentBased, steps });
}

function element(inboxSeq: number, headers = [{ name: 'traceparent', value: `00-${PUBLISHER.traceId}-${PUBLISHER.spanId}-01` }]): InboxElement {
  return { inboxSeq, entityKey: utf8.encode('k'), eventTimeMs: 1_000, payload: { kind: 'event', event: utf8.encode(`hello ${inboxSeq}`) }, headers, deliveries: 1 };
}

const scope = { stateKey: 'echo.k', agent: 'echo', ownerEpoch: 1, signal: new AbortController().signal };

describe('TracedActorRuntime', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  // The services' context manager: nothing follows an await, so children find their parent explicitly.
  const manager = new SynchronousContextManager();

  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('under a parent-based sampler, processes an element whose parent is sampled out with no span, passing its trace context on as it came', async () => {
    exporter.reset();
    const published: OutboxEntryDoc[] = [];
    const unsampled = `00-${PUBLISHER.traceId}-${PUBLISHER.spanId}-00`;
    const outcome = await runtime(new InMemoryStateStore(), published, new RuntimeMetrics({ defaultMetrics: false }), true).process(element(7, [{ name: 'traceparent', value: unsampled }]), scope);
    expect(outcome.kind).toBe('applied');
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(published[0]?.headers.find((h) => h.name === 'traceparent')?.value).toBe(unsampled);
    // A sampled parent still gets its activation span under the same sampler setting.
    await runtime(new InMemoryStateStore(), [], new RuntimeMetrics({ defaultMetrics: false }), true).process(element(8), scope);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('activate echo');
  });

  it("continues the element's trace and makes the activation span the parent of what the commit publishes", async () => {
    exporter.reset();
    const published: OutboxEntryDoc[] = [];
    const metrics = new RuntimeMetrics({ defaultMetrics: false });
    const outcome = await runtime(new InMemoryStateStore(), published, metrics).process(element(7), scope);
    expect(outcome.kind).toBe('applied');
    const spans = exporter.getFinishedSpans();
    const activation = spans.find((s) => s.name === 'activate echo');
    expect(activation?.spanContext().traceId).toBe(PUBLISHER.traceId);
    expect(activation?.parentSpanContext?.spanId).toBe(PUBLISHER.spanId);
    expect(activation?.attributes).toMatchObject({ 'agents.key': createHash('sha256').update('k').digest('hex').slice(0, 32), 'agents.partition': 3, 'agents.status': 'completed', 'agents.seq': 0, 'agents.outputs': 1, 'agents.retried': false });
    // Its steps are events of its own span (AGENTS_TRACE_STEPS=events, the default), in the order they ran, each with its duration.
    expect(spans.filter((s) => s.parentSpanContext?.spanId === activation?.spanContext().spanId)).toEqual([]);
    expect(activation?.events.map((e) => e.name)).toEqual(['state.load', 'state.commit', 'outbox.publish']);
    const [, commit, publish] = activation?.events ?? [];
    expect(commit?.attributes).toMatchObject({ 'agents.state.revision': 1, 'agents.state.bytes': expect.any(Number) });
    expect(publish?.attributes).toMatchObject({ 'agents.outbox.entries': 1, 'agents.intents': 0, 'messaging.system': 'nats' });
    for (const event of activation?.events ?? []) expect(event.attributes?.['agents.duration_ms']).toBeGreaterThanOrEqual(0);
    const traceparent = published[0]?.headers.find((h) => h.name === 'traceparent')?.value;
    expect(traceparent).toBe(`00-${PUBLISHER.traceId}-${activation?.spanContext().spanId}-01`);
    expect(await metrics.registry.metrics()).toContain('agents_activation_duration_seconds_count{agent="echo",status="completed"} 1');
  });

  it('re-parents once per delivery: an in-place retry commits byte-identical bytes inside one span marked as retried', async () => {
    exporter.reset();
    const store = new InMemoryStateStore();
    store.failCommit(1, 'before-write');
    const published: OutboxEntryDoc[] = [];
    await runtime(store, published, new RuntimeMetrics({ defaultMetrics: false })).process(element(8), scope);
    expect(store.attempts).toHaveLength(2);
    expect(Buffer.from(store.attempts[0]!).equals(Buffer.from(store.attempts[1]!))).toBe(true);
    const activations = exporter.getFinishedSpans().filter((s) => s.name === 'activate echo');
    expect(activations).toHaveLength(1);
    expect(activations[0]?.attributes).toMatchObject({ 'agents.attempts': 2, 'agents.retried': true, 'agents.outcome': 'applied' });
    expect(activations[0]?.events.map((e) => e.name)).toContain('retry');
    const commits = activations[0]?.events.filter((e) => e.name === 'state.commit') ?? [];
    expect(commits.map((e) => [e.attributes?.['error.type'], e.attributes?.['agents.state.revision']])).toEqual([[expect.any(String), undefined], [undefined, 1]]);
  });

  it('with AGENTS_TRACE_STEPS=spans, records each step as a child span of the activation, a failed write with error status', async () => {
    exporter.reset();
    const store = new InMemoryStateStore();
    store.failCommit(1, 'before-write');
    await runtime(store, [], new RuntimeMetrics({ defaultMetrics: false }), false, 'spans').process(element(10), scope);
    const spans = exporter.getFinishedSpans();
    const activation = spans.find((s) => s.name === 'activate echo');
    expect(activation?.events.map((e) => e.name)).not.toContain('state.commit');
    const children = spans.filter((s) => s.parentSpanContext?.spanId === activation?.spanContext().spanId);
    // The in-place retry reads the document again before its second write.
    expect(children.map((s) => s.name).sort()).toEqual(['outbox.publish', 'state.commit', 'state.commit', 'state.load', 'state.load']);
    expect(children.filter((s) => s.name === 'state.commit').map((s) => s.status.code)).toEqual([2, 0]);
    expect(children.find((s) => s.name === 'outbox.publish')?.attributes).toMatchObject({ 'agents.outbox.entries': 1 });
  });

  it('sampled out (a parent that is not sampled): no child span at all, and the outbox carries the unsampled activation as parent', async () => {
    exporter.reset();
    const published: OutboxEntryDoc[] = [];
    const unsampled = [{ name: 'traceparent', value: `00-${PUBLISHER.traceId}-${PUBLISHER.spanId}-00` }];
    const outcome = await runtime(new InMemoryStateStore(), published, new RuntimeMetrics({ defaultMetrics: false })).process(element(9, unsampled), scope);
    expect(outcome.kind).toBe('applied');
    // Children started from the empty context would have rooted traces of their own.
    expect(exporter.getFinishedSpans()).toEqual([]);
    const traceparent = published[0]?.headers.find((h) => h.name === 'traceparent')?.value;
    expect(traceparent).toMatch(new RegExp(`^00-${PUBLISHER.traceId}-[0-9a-f]{16}-00$`));
    expect(traceparent).not.toContain(PUBLISHER.spanId);
  });
});
