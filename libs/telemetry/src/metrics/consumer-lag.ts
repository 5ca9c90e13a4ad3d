import { Gauge, type Registry } from 'prom-client';

/** One consumer's backlog, as its consumer info reported it. */
export interface ConsumerLagSample {
  readonly stream: string;
  readonly consumer: string;
  /** The inbox partition the consumer serves; absent for unpartitioned consumers (ingest, intents). */
  readonly partition?: number;
  /** Messages stored and not yet delivered (`num_pending`). */
  readonly pending: number;
  /** Messages delivered and not yet acknowledged (`num_ack_pending`). */
  readonly ackPending: number;
}

/**
 * Consumer lag gauges: `agents_consumer_pending_messages` and
 * `agents_consumer_ack_pending_messages` by stream, consumer and partition (empty when
 * unpartitioned). Each sample replaces the previous one whole, so a partition handed to another
 * activator disappears from this one's series.
 */
export class ConsumerLagMetrics {
  private readonly pending: Gauge<'stream' | 'consumer' | 'partition'>;
  private readonly ackPending: Gauge<'stream' | 'consumer' | 'partition'>;

  constructor(registry: Registry) {
    this.pending = new Gauge({
      name: 'agents_consumer_pending_messages',
      help: 'Messages stored and not yet delivered to the consumer (num_pending), sampled periodically',
      labelNames: ['stream', 'consumer', 'partition'] as const,
      registers: [registry],
    });
    this.ackPending = new Gauge({
      name: 'agents_consumer_ack_pending_messages',
      help: 'Messages delivered to the consumer and not yet acknowledged (num_ack_pending), sampled periodically',
      labelNames: ['stream', 'consumer', 'partition'] as const,
      registers: [registry],
    });
  }

  /** Replaces every series with `samples`. */
  record(samples: readonly ConsumerLagSample[]): void {
    this.pending.reset();
    this.ackPending.reset();
    for (const sample of samples) {
      const labels = { stream: sample.stream, consumer: sample.consumer, partition: sample.partition === undefined ? '' : String(sample.partition) };
      this.pending.set(labels, sample.pending);
      this.ackPending.set(labels, sample.ackPending);
    }
  }
}

/**
 * Samples consumer lag every `everyMs` (one sample at a time; a slow server delays the next, never
 * stacks them) and records it. A failed sample keeps the previous values and is reported to
 * `onError`; sampling never affects processing.
 */
export class ConsumerLagSampler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly metrics: ConsumerLagMetrics,
    private readonly sample: () => Promise<readonly ConsumerLagSample[]>,
    private readonly everyMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  /** Takes a first sample now, then one every `everyMs`. */
  start(): void {
    this.stopped = false;
    this.tick();
  }

  /** Stops sampling and waits for a sample in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  private tick(): void {
    this.running = this.sample()
      .then((samples) => this.metrics.record(samples))
      .catch((error: unknown) => this.onError(error instanceof Error ? error : new Error(String(error))))
      .finally(() => {
        if (this.stopped) return;
        this.timer = setTimeout(() => this.tick(), this.everyMs);
        this.timer.unref();
      });
  }
}
