import type { JetStreamManager } from '@nats-io/jetstream';

/**
 * The keys of a KV bucket that currently hold a message, read from the bucket stream's subject
 * index in one request (`STREAM.INFO` with a `subjects_filter`), never through `kv.keys()`.
 *
 * Why: `kv.keys()` runs an ordered push consumer (deliver last per subject) and stops at the first
 * message delivered with 0 pending, or at an idle heartbeat. On nats-server 2.9.10 the pending
 * count carried by those messages can stay one too high when an older revision of a key is
 * removed (history 1, TTL expiry) while the consumer runs (nats-server#3481), and a bucket that is
 * written every second — the membership heartbeats — never goes idle for the 5 s heartbeat, so
 * the listing never ends. Observed in the activator churn suite: a member's re-list stuck for
 * 30–108 s, its assignment frozen and its shutdown hung behind it. A request has a timeout.
 *
 * A key whose last message is a delete or purge marker is listed too (the marker is a message):
 * callers that must tell them apart `get` the key.
 */
export async function listKvKeys(jsm: JetStreamManager, bucket: string, filter = '>'): Promise<string[]> {
  const prefix = `$KV.${bucket}.`;
  const info = await jsm.streams.info(`KV_${bucket}`, { subjects_filter: `${prefix}${filter}` });
  return Object.keys(info.state.subjects ?? {})
    .filter((subject) => subject.startsWith(prefix))
    .map((subject) => subject.slice(prefix.length))
    .sort();
}
