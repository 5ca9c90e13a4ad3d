/**
 * Live updates for the page: a server-sent-event stream of topic names (`cluster`, `approvals`,
 * `errors`, `outputs`, `erasures`) telling the page which view to read again. The console learns
 * of changes from NATS itself: a KV watch on the lease and membership buckets, and core
 * subscriptions on approval requests, decisions, error records, outputs and erasure audits (each a
 * plain subscription: no consumer, nothing stored). Changes are coalesced per topic for 250 ms,
 * so a burst of outputs is one notification. A lost notification costs only freshness: every
 * view also re-reads on a timer.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { KvWatchInclude, type KV } from '@nats-io/kv';
import type { Topology } from '#routing';

/** The topics a page may be told about. */
export type LiveTopic = 'cluster' | 'approvals' | 'errors' | 'outputs' | 'erasures';

/** Someone listening (one open page). */
export type LiveListener = (topic: LiveTopic) => void;

/** Fans NATS changes out to the open pages. */
export class LiveUpdates {
  private readonly listeners = new Set<LiveListener>();
  private readonly due = new Map<LiveTopic, NodeJS.Timeout>();
  private readonly subscriptions: Subscription[] = [];
  private readonly stops: (() => void)[] = [];

  /** Starts watching. */
  async start(nc: NatsConnection, topology: Topology, buckets: readonly KV[]): Promise<void> {
    const p = topology.prefix;
    const subjects: [string, LiveTopic][] = [
      [`${p}.approval-requests.>`, 'approvals'],
      [`${p}.inbox.*.*.*.approval`, 'approvals'],
      [`${p}.errors.>`, 'errors'],
      [`${p}.output.>`, 'outputs'],
      [`${p}.audit.>`, 'erasures'],
    ];
    for (const [subject, topic] of subjects) {
      const sub = nc.subscribe(subject, { callback: () => this.notify(topic) });
      this.subscriptions.push(sub);
    }
    for (const kv of buckets) {
      const watch = await kv.watch({ include: KvWatchInclude.UpdatesOnly });
      this.stops.push(() => watch.stop());
      void (async () => {
        for await (const entry of watch) {
          void entry;
          this.notify('cluster');
        }
      })();
    }
  }

  /** Adds a listener; the returned function removes it. */
  listen(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every page about `topic` (coalesced). */
  notify(topic: LiveTopic): void {
    if (this.due.has(topic)) return;
    const timer = setTimeout(() => {
      this.due.delete(topic);
      for (const listener of this.listeners) listener(topic);
    }, 250);
    timer.unref();
    this.due.set(topic, timer);
  }

  stop(): void {
    for (const sub of this.subscriptions) sub.unsubscribe();
    for (const stop of this.stops) stop();
    for (const timer of this.due.values()) clearTimeout(timer);
  }
}
