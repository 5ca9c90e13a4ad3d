import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { ConsumerLagMetrics } from './consumer-lag.js';
import { errorRecordCounter } from './error-record-counter.js';

/**
 * Ingress's Prometheus metrics, served on its ops listener. Counted when the target stream
 * acknowledged the forward or the error record, once per message this process carried out; a
 * redelivery after a crash counts again in the process that handles it (the streams deduplicate
 * the publish itself).
 */
export class IngressMetrics {
  readonly registry = new Registry();

  /** Ingest messages carried out, by lane (events, results, approvals, unknown) and outcome (forwarded, refused). */
  readonly messages = new Counter({
    name: 'agents_ingest_messages_total',
    help: 'Ingest messages forwarded to the inbox or refused with an error record, by lane and outcome',
    labelNames: ['lane', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Error records published refusing ingest messages, by agent and reason. */
  readonly errorRecords = errorRecordCounter(this.registry);

  /** Forwards (or record publishes) that failed and are retried in place, holding the key's order. */
  readonly forwardRetries = new Counter({
    name: 'agents_ingest_forward_retries_total',
    help: 'Ingest forwards retried in place after a failed publish',
    registers: [this.registry],
  });

  /** Lag of the ingest consumer while this replica holds the ingress lease. */
  readonly consumerLag = new ConsumerLagMetrics(this.registry);

  constructor(options: { readonly defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }
}
