import { Counter, Registry } from 'prom-client';

/**
 * Counters of the span export pipeline, served on every service's `/metrics`. Spans are dropped —
 * never waited for — when the export queue is full or an export fails (collector down, timeout,
 * refused): the runtime never slows down for its traces, and these counters say how much was lost.
 * Values are per process and reset on restart.
 */
export class TracingMetrics {
  readonly registry = new Registry();

  /**
   * Finished, sampled spans that never reached the collector, by reason: `queue_full` (the bounded
   * export queue overflowed), or the exporter's error name (e.g. `OTLPExporterError`, `Error` for a
   * timeout or a refused connection).
   */
  readonly spansDropped = new Counter({
    name: 'agents_trace_spans_dropped_total',
    help: 'Finished spans dropped instead of exported, by reason (queue_full or the export error)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /**
   * True when the last export failed (the collector is down or refusing): a stopping service then
   * does not wait for its final flush. Cleared by the next successful export.
   */
  collectorFailing = false;

  /** Finished, sampled spans the collector acknowledged. */
  readonly spansExported = new Counter({
    name: 'agents_trace_spans_exported_total',
    help: 'Finished spans exported to the collector',
    registers: [this.registry],
  });
}
