import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';

/** One stored message as a scan sees it. */
export interface ScannedMessage {
  readonly seq: number;
  readonly subject: string;
  readonly data: Uint8Array;
}

/** How long a scan waits for the next message before it concludes the stream has no more. */
const SCAN_IDLE_MS = 2_000;

/**
 * Stream-level erasure primitives over the JetStream API. Every one is idempotent (purging or
 * deleting what is already gone does nothing), so an erasure that crashed half-way is simply run
 * again. Deletions use the server's secure erase: the message bytes are overwritten on disk, not
 * only unlinked from the index.
 */
export class StreamScrubber {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
  ) {}

  /** Messages stored under `filter` (0 for a stream that does not exist). */
  async count(stream: string, filter: string): Promise<number> {
    try {
      const info = await this.jsm.streams.info(stream, { subjects_filter: filter });
      return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
    } catch (error) {
      if (isStreamNotFound(error)) return 0;
      throw error;
    }
  }

  /** Purges every message under `filter`; returns how many went. */
  async purge(stream: string, filter: string): Promise<number> {
    if ((await this.count(stream, filter)) === 0) return 0;
    const response = await this.jsm.streams.purge(stream, { filter });
    return response.purged;
  }

  /**
   * Reads every message under `filter` (an ordered consumer, nothing durable left behind) and
   * securely deletes those `matches` selects; returns the deleted messages. Messages stored after
   * the scan started may be missed: erasure runs passes until one finds nothing.
   */
  async deleteMatching(stream: string, filter: string, matches: (message: ScannedMessage) => boolean): Promise<ScannedMessage[]> {
    const selected = await this.scan(stream, filter, matches);
    for (const message of selected) await this.deleteMessage(stream, message.seq);
    return selected;
  }

  /** The messages under `filter` that `matches` selects, without deleting them. */
  async scan(stream: string, filter: string, matches: (message: ScannedMessage) => boolean): Promise<ScannedMessage[]> {
    const total = await this.count(stream, filter);
    if (total === 0) return [];
    const consumer = await this.js.consumers.get(stream, { filter_subjects: filter });
    const selected: ScannedMessage[] = [];
    let seen = 0;
    while (seen < total) {
      const batch = await consumer.fetch({ max_messages: Math.min(1_000, total - seen), expires: SCAN_IDLE_MS });
      let got = 0;
      for await (const msg of batch) {
        got += 1;
        seen += 1;
        const message = { seq: msg.seq, subject: msg.subject, data: msg.data };
        if (matches(message)) selected.push(message);
        if (msg.info.pending === 0) seen = total;
      }
      // Nothing came within the wait: the rest was deleted (by retention or another eraser) meanwhile.
      if (got === 0) break;
    }
    return selected;
  }

  private async deleteMessage(stream: string, seq: number): Promise<void> {
    try {
      await this.jsm.streams.deleteMessage(stream, seq, true);
    } catch (error) {
      // Already gone (an earlier pass, retention, a concurrent erasure): the goal holds.
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.NoMessageFound) return;
      throw error;
    }
  }
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}
