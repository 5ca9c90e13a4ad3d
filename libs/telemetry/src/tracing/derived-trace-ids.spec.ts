// Layer 1: a message that arrived without trace context must root the same trace on every delivery (retries and replays never start an unrelated trace), while each delivery still gets a span of its own.
import { defaultTextMapGetter, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AlwaysOffSampler, AlwaysOnSampler, InMemorySpanExporter, ParentBasedSampler, SamplingDecision, SimpleSpanProcessor, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { decideDerivedRoot, derivedTraceId, DerivedTraceIdGenerator, installRootSampler, installTraceIdGenerator, startSpanInTrace } from './derived-trace-ids.js';
import { ingestRootIds } from './ingest-root-ids.js';

function tracing(): { exporter: InMemorySpanExporter; tracer: ReturnType<TracerProvider['getTracer']> } {
  const generator = new DerivedTraceIdGenerator();
  installTraceIdGenerator(generator);
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ idGenerator: generator, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, tracer: provider.getTracer('spec') };
}

afterEach(() => installTraceIdGenerator(undefined));

describe('derivedTraceId', () => {
  it('is 32 lowercase hex digits, the same for the same parts and different for others', () => {
    const id = derivedTraceId('ingest', 'AGENTS_INGEST', 42);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(derivedTraceId('ingest', 'AGENTS_INGEST', 42)).toBe(id);
    expect(derivedTraceId('ingest', 'AGENTS_INGEST', 43)).not.toBe(id);
  });
});

describe('startSpanInTrace', () => {
  it('roots two deliveries of a message without context in one trace, each with a span of its own', () => {
    const { exporter, tracer } = tracing();
    const rootId = derivedTraceId('inbox', 'refund.o-1', 7);
    startSpanInTrace(tracer, 'first', {}, ROOT_CONTEXT, () => rootId).end();
    startSpanInTrace(tracer, 'redelivered', {}, ROOT_CONTEXT, () => rootId).end();
    const [first, second] = exporter.getFinishedSpans();
    expect(first?.spanContext().traceId).toBe(rootId);
    expect(second?.spanContext().traceId).toBe(rootId);
    expect(first?.spanContext().spanId).not.toBe(second?.spanContext().spanId);
  });

  it("continues the parent's trace when the context carries one, ignoring the derived id", () => {
    const { exporter, tracer } = tracing();
    const parent = tracer.startSpan('publisher');
    startSpanInTrace(tracer, 'child', {}, trace.setSpan(ROOT_CONTEXT, parent), () => derivedTraceId('x')).end();
    parent.end();
    const child = exporter.getFinishedSpans().find((s) => s.name === 'child');
    expect(child?.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it('derives no root trace id for a span that continues a carried trace', () => {
    const { tracer } = tracing();
    const parent = tracer.startSpan('publisher');
    let derived = 0;
    startSpanInTrace(tracer, 'child', {}, trace.setSpan(ROOT_CONTEXT, parent), () => (derived++, derivedTraceId('x'))).end();
    parent.end();
    expect(derived).toBe(0);
  });

  it('derives no root trace id with tracing off, where every span is a no-op', () => {
    installTraceIdGenerator(undefined);
    let derived = 0;
    const span = startSpanInTrace(trace.getTracer('off'), 'root', {}, ROOT_CONTEXT, () => (derived++, derivedTraceId('x')));
    span.end();
    expect(span.isRecording()).toBe(false);
    expect(derived).toBe(0);
  });

  it('leaves later root spans on random trace ids', () => {
    const { exporter, tracer } = tracing();
    startSpanInTrace(tracer, 'seeded', {}, ROOT_CONTEXT, () => derivedTraceId('y')).end();
    tracer.startSpan('plain').end();
    const ids = exporter.getFinishedSpans().map((s) => s.spanContext().traceId);
    expect(ids[0]).toBe(derivedTraceId('y'));
    expect(ids[1]).not.toBe(derivedTraceId('y'));
  });
});

describe('decideDerivedRoot', () => {
  afterEach(() => installRootSampler(undefined));

  it('is undefined with tracing off (no sampler installed)', () => {
    expect(decideDerivedRoot('ingest events a', SpanKind.CONSUMER, ingestRootIds('S', 1))).toBeUndefined();
  });

  it('gives a sampled-in root its derived trace id, to start the span with', () => {
    installRootSampler(new ParentBasedSampler({ root: new AlwaysOnSampler() }));
    expect(decideDerivedRoot('ingest events a', SpanKind.CONSUMER, ingestRootIds('S', 1))).toEqual({ sampled: true, traceId: ingestRootIds('S', 1).traceId });
  });

  it('gives a sampled-out root the traceparent its span would have injected: the derived trace id, the sampled flag off, the same on every delivery', () => {
    installRootSampler(new ParentBasedSampler({ root: new AlwaysOffSampler() }));
    const first = decideDerivedRoot('ingest events a', SpanKind.CONSUMER, ingestRootIds('S', 7));
    expect(first).toMatchObject({ sampled: false });
    const header = (first as { traceparent: string }).traceparent;
    expect(header).toBe(`00-${ingestRootIds('S', 7).traceId}-${ingestRootIds('S', 7).spanId}-00`);
    expect(header.split('-')[2]).not.toBe('0000000000000000');
    expect(decideDerivedRoot('ingest events a', SpanKind.CONSUMER, ingestRootIds('S', 7))).toEqual(first);
    // The propagator reads it as a valid parent that is sampled out.
    const extracted = trace.getSpanContext(new W3CTraceContextPropagator().extract(ROOT_CONTEXT, { traceparent: header }, defaultTextMapGetter));
    expect(extracted).toMatchObject({ traceId: ingestRootIds('S', 7).traceId, traceFlags: 0, isRemote: true });
  });

  it("follows a ratio sampler's decision by trace id, as the span's own sampling would", () => {
    const ratio = new TraceIdRatioBasedSampler(0.5);
    installRootSampler(new ParentBasedSampler({ root: ratio }));
    const decisions = Array.from({ length: 200 }, (_, seq) => {
      const decided = decideDerivedRoot('ingest events a', SpanKind.CONSUMER, ingestRootIds('S', seq));
      const own = ratio.shouldSample(ROOT_CONTEXT, ingestRootIds('S', seq).traceId).decision === SamplingDecision.RECORD_AND_SAMPLED;
      expect(decided?.sampled, `seq ${seq}`).toBe(own);
      return own;
    });
    expect(decisions.filter(Boolean).length).toBeGreaterThan(50);
    expect(decisions.filter((d) => !d).length).toBeGreaterThan(50);
  });
});
