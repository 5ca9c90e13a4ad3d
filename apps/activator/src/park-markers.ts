import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { parkedMarkerKey, type Topology } from '#routing';
import { listKvKeys } from '#transport';

/** A parked key as its marker records it. */
export interface ParkMarker {
  readonly stateKey: string;
  /** The lowest inbox sequence of the key that may not be applied yet: its replay starts here. */
  readonly fromSeq: number;
}

/**
 * The durable half of parking (see `PartitionWorker`): one marker per parked key in
 * `AGENTS_TIMERS` under `parked.p<partition>.<stateKey>`, written before any message of the key is
 * acknowledged off the partition consumer without being applied, and removed once the key's
 * replay caught up with the inbox. A new owner lists its partition's markers before it consumes
 * and replays those keys first, so a message acknowledged while parked is never lost to a crash
 * or a hand-over. Writes of one key are chained (a removal never overtakes a later park).
 * A marker left behind (a removal that failed) only costs one replay of already applied elements,
 * each a duplicate.
 */
export class ParkMarkers {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly topology: Topology,
    private readonly partition: number,
  ) {}

  /** The partition's markers (one request for the listing; keys whose last write is a removal are skipped). */
  async list(): Promise<ParkMarker[]> {
    const prefix = parkedMarkerKey(this.partition, '');
    const markers: ParkMarker[] = [];
    for (const key of await listKvKeys(this.jsm, this.topology.buckets.timers, `${prefix}>`)) {
      const entry = await this.kv.get(key);
      if (entry === null || entry.operation !== 'PUT') continue;
      const fromSeq = Number(new TextDecoder().decode(entry.value));
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 1) continue;
      markers.push({ stateKey: key.slice(prefix.length), fromSeq });
    }
    return markers;
  }

  /** Records that `stateKey` is parked from `fromSeq`. Idempotent. */
  park(stateKey: string, fromSeq: number): Promise<void> {
    return this.chain(stateKey, async () => {
      await this.kv.put(parkedMarkerKey(this.partition, stateKey), new TextEncoder().encode(String(fromSeq)));
    });
  }

  /** Removes the marker of `stateKey` (its replay caught up). Idempotent. */
  unpark(stateKey: string): Promise<void> {
    return this.chain(stateKey, async () => {
      await this.kv.delete(parkedMarkerKey(this.partition, stateKey));
    });
  }

  private chain(stateKey: string, write: () => Promise<void>): Promise<void> {
    const before = this.chains.get(stateKey) ?? Promise.resolve();
    const next = before.then(write, write);
    this.chains.set(stateKey, next);
    const forget = (): void => {
      if (this.chains.get(stateKey) === next) this.chains.delete(stateKey);
    };
    next.then(forget, forget);
    return next;
  }
}
