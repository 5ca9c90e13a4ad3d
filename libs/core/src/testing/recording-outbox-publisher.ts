/**
 * An {@link OutboxPublisher} that records what it publishes and deduplicates by `msgId` the way
 * a JetStream stream's duplicate window does, with a fault hook that fails the next N publishes.
 * No clock, no randomness.
 */
import type { OutboxEntryDoc } from '../actor/actor-document.js';
import type { OutboxPublisher } from '../actor/outbox-publisher.js';
import { RetryableError } from '../errors/runtime-error.js';

/** The injected publish failure (retryable: nothing was acknowledged). */
export class InjectedPublishFault extends RetryableError {
  override readonly name = 'InjectedPublishFault';
}

/** Records publishes; `stored` is what the streams would hold after deduplication. */
export class RecordingOutboxPublisher implements OutboxPublisher {
  private failuresLeft = 0;
  private readonly seen = new Set<string>();
  /** Every successful `publish` call's entries, in call order (republishes included). */
  readonly batches: OutboxEntryDoc[][] = [];
  /** What the streams hold: the first copy of each `msgId`, in arrival order. */
  readonly stored: OutboxEntryDoc[] = [];
  /** Calls that were refused by the fault hook. */
  failedCalls = 0;

  /** `log`, when given, gets a `publish <subject>` line per entry published (to interleave with other doubles' logs). */
  constructor(private readonly log?: string[]) {}

  /** Every entry published, in order, republishes included (the batches flattened). */
  get published(): OutboxEntryDoc[] {
    return this.batches.flat();
  }

  /** Makes the next `times` calls reject without publishing anything. */
  failNext(times = 1): this {
    this.failuresLeft += times;
    return this;
  }

  async publish(entries: readonly OutboxEntryDoc[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft -= 1;
      this.failedCalls += 1;
      throw new InjectedPublishFault(`injected publish failure of ${entries.length} entries`);
    }
    this.batches.push([...entries]);
    for (const entry of entries) {
      this.log?.push(`publish ${entry.subject}`);
      if (this.seen.has(entry.msgId)) continue;
      this.seen.add(entry.msgId);
      this.stored.push(entry);
    }
  }

  /** Entries stored on `subject` (deduplicated). */
  storedOn(subject: string): OutboxEntryDoc[] {
    return this.stored.filter((entry) => entry.subject === subject);
  }
}
