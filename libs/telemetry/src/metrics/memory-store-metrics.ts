import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The memory-store's Prometheus metrics, served on its ops listener: requests by operation and
 * outcome (`ok` or a memory error code) and their latency. A retried request counts again.
 */
export class MemoryStoreMetrics {
  readonly registry = new Registry();

  /** Requests answered, by op (load, search, upsert, ...) and code (ok, bad_request, unavailable, ...). */
  readonly requests = new Counter({
    name: 'agents_memory_requests_total',
    help: 'Long-term memory requests answered, by operation and outcome code',
    labelNames: ['op', 'code'] as const,
    registers: [this.registry],
  });

  /** Time from receiving a request to replying, by op. */
  readonly latency = new Histogram({
    name: 'agents_memory_request_duration_seconds',
    help: 'Time to answer a long-term memory request, by operation',
    labelNames: ['op'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [this.registry],
  });

  /** Rows removed by the background retention sweep. */
  readonly swept = new Counter({
    name: 'agents_memory_swept_rows_total',
    help: 'Expired long-term rows deleted by the retention sweep',
    registers: [this.registry],
  });

  constructor(options: { readonly defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
