// Layer 1: the dropped-span counter is fed by the SDK's own batch span processor (its self-observability counter), so this spec drives a real BatchSpanProcessor — if an OpenTelemetry upgrade renamed the counter, drops would silently stop being counted and this fails.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { spanOutcomeMeterProvider } from './span-outcome-meter.js';
import { TracingMetrics } from './tracing-metrics.js';

/** An exporter that answers every export with `result`, or never answers when `result` is undefined. */
class ScriptedExporter implements SpanExporter {
  exported = 0;
  constructor(private readonly result: ExportResult | undefined) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported += spans.length;
    if (this.result !== undefined) done(this.result);
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

async function counted(metrics: TracingMetrics, name: string): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

function run(exporter: SpanExporter, metrics: TracingMetrics, options: { maxQueueSize: number; maxExportBatchSize: number }, spans: number): TracerProvider {
  const processor = new BatchSpanProcessor({ exporter, selfObsMeterProvider: spanOutcomeMeterProvider(metrics), scheduledDelayMillis: 10, exportTimeoutMillis: 200, ...options });
  const provider = new TracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer('spec');
  for (let i = 0; i < spans; i += 1) tracer.startSpan(`s${i}`).end();
  return provider;
}

describe('spanOutcomeMeterProvider', () => {
  it('counts spans the collector acknowledged as exported and nothing as dropped', async () => {
    const metrics = new TracingMetrics();
    const provider = run(new ScriptedExporter({ code: ExportResultCode.SUCCESS }), metrics, { maxQueueSize: 100, maxExportBatchSize: 10 }, 25);
    await provider.forceFlush();
    expect(await counted(metrics, 'agents_trace_spans_exported_total')).toBe(25);
    expect(await counted(metrics, 'agents_trace_spans_dropped_total')).toBe(0);
    expect(metrics.collectorFailing).toBe(false);
  });

  it('counts the spans of a failed export as dropped, by the export error', async () => {
    const metrics = new TracingMetrics();
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { name: 'OTLPExporterError' });
    const provider = run(new ScriptedExporter({ code: ExportResultCode.FAILED, error }), metrics, { maxQueueSize: 100, maxExportBatchSize: 100 }, 7);
    await provider.forceFlush().catch(() => undefined);
    const text = await metrics.registry.metrics();
    expect(text).toContain('agents_trace_spans_dropped_total{reason="OTLPExporterError"} 7');
    expect(await counted(metrics, 'agents_trace_spans_exported_total')).toBe(0);
    expect(metrics.collectorFailing).toBe(true);
  });

  it('drops and counts what overflows the bounded queue while an export hangs, without blocking span.end()', async () => {
    const metrics = new TracingMetrics();
    const exporter = new ScriptedExporter(undefined);
    run(exporter, metrics, { maxQueueSize: 5, maxExportBatchSize: 5 }, 30);
    // The first 5 fill the queue and go to the hanging export; the next 5 queue behind it; the rest overflow.
    expect(await metrics.registry.metrics()).toContain('agents_trace_spans_dropped_total{reason="queue_full"} 20');
    expect(exporter.exported).toBe(5);
  });
});
