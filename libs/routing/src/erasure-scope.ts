/**
 * Where one physical entity key lives in a deployment's streams and buckets, as subject filters:
 * what erasure purges by subject, and what it must scan because the subject does not carry the key
 * (intents are addressed by tool, error records by reason). Derived from the topology alone, so the
 * eraser and the tests that check it agree on every place. Pure: no side effects on import.
 */
import { entityDigest } from './entity-digest.js';
import { decodeKeyToken } from './key-token.js';
import { partitionOf } from './partition.js';
import type { Topology } from './topology.js';

/** A subject filter over one stream. */
export interface StreamFilter {
  readonly stream: string;
  readonly filter: string;
}

/** The places of one physical key (its canonical token). */
export interface ErasureScope {
  readonly token: string;
  /** The key's partition (its inbox lane and its timer index entries). */
  readonly partition: number;
  /** Stream subjects that carry the token (ingest lanes, the inbox lane, outputs, approval requests) or the key's digest (the replay journal). */
  readonly streamPurges: readonly StreamFilter[];
  /** The KV streams' subjects of the key: its actor documents (every agent) and timer index entries. */
  readonly kvPurges: readonly StreamFilter[];
}

/** The underlying stream of KV bucket `bucket`. */
export function kvStreamName(bucket: string): string {
  return `KV_${bucket}`;
}

/** The underlying subject of key `key` in KV bucket `bucket`. */
export function kvSubject(bucket: string, key: string): string {
  return `$KV.${bucket}.${key}`;
}

/** The index key of a state key in `AGENTS_TIMERS`: partition first, so an owner lists only its own. */
export function timerIndexKey(partition: number, stateKey: string): string {
  return `p${String(partition).padStart(4, '0')}.${stateKey}`;
}

/**
 * The key in `AGENTS_TIMERS` of the park marker of a state key (the key's backlog was acknowledged
 * off the partition consumer and is replayed from the inbox, see the activator's parked keys):
 * `parked.` first, so a listing of a partition's timer index entries (`p0001.>`) never sees it.
 */
export function parkedMarkerKey(partition: number, stateKey: string): string {
  return `parked.${timerIndexKey(partition, stateKey)}`;
}

/**
 * The erasure scope of the physical key whose canonical token is `token`. Every filter matches
 * the key in any agent; none matches another key (a filter's token position is exact).
 */
export function erasureScope(topology: Topology, token: string): ErasureScope {
  const p = topology.prefix;
  const partition = partitionOf(token, topology.partitions);
  const { streams, buckets } = topology;
  return {
    token,
    partition,
    streamPurges: [
      ...topology.streams.ingest.subjects.map((subject) => ({ stream: streams.ingest.name, filter: subject.replace(/>$/, `*.${token}`) })),
      { stream: streams.inbox.name, filter: `${p}.inbox.${partition}.*.${token}.*` },
      { stream: streams.output.name, filter: topology.outputFilter(undefined, token) },
      { stream: streams.intents.name, filter: `${p}.approval-requests.*.${token}` },
      { stream: streams.journal.name, filter: `${p}.journal.*.${entityDigest(decodeKeyToken(token))}` },
    ],
    kvPurges: [
      { stream: kvStreamName(buckets.state), filter: kvSubject(buckets.state, `*.${token}`) },
      { stream: kvStreamName(buckets.timers), filter: kvSubject(buckets.timers, timerIndexKey(partition, `*.${token}`)) },
      { stream: kvStreamName(buckets.timers), filter: kvSubject(buckets.timers, parkedMarkerKey(partition, `*.${token}`)) },
    ],
  };
}
