import { createNoopMeter, type Attributes, type Counter, type Meter, type MeterProvider } from '@opentelemetry/api';
import type { TracingMetrics } from './tracing-metrics.js';

/**
 * The self-observability counter the SDK's span processors report through (OpenTelemetry
 * semantic conventions, `otel.sdk.processor.span.processed`): one `add(n)` per batch of spans
 * whose processing ended, with `error.type` set when they were dropped (`queue_full`) or their
 * export failed. Pinned by a spec against a real `BatchSpanProcessor`.
 */
export const SPAN_PROCESSED_METRIC = 'otel.sdk.processor.span.processed';

const ERROR_TYPE = 'error.type';
const QUEUE_FULL = 'queue_full';

/**
 * A `MeterProvider` for a span processor's `selfObsMeterProvider` option that turns its
 * processed-span counter into Prometheus counters (dropped by reason, exported); every other
 * instrument is a no-op. This is how a bounded `BatchSpanProcessor` reports the spans it drops
 * without a metrics SDK in the process.
 */
export function spanOutcomeMeterProvider(metrics: TracingMetrics): MeterProvider {
  const noop = createNoopMeter();
  const processed: Counter = {
    add(value: number, attributes?: Attributes): void {
      const reason = attributes?.[ERROR_TYPE];
      if (reason === undefined) {
        metrics.spansExported.inc(value);
        metrics.collectorFailing = false;
      } else {
        metrics.spansDropped.inc({ reason: String(reason) }, value);
        if (reason !== QUEUE_FULL) metrics.collectorFailing = true;
      }
    },
  };
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string) => (name === SPAN_PROCESSED_METRIC ? processed : noop.createCounter(name)),
  });
  return { getMeter: () => meter };
}
