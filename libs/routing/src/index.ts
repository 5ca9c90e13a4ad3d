/**
 * @packageDocumentation
 * Routing: the canonical key token, the partition function, hot-key sharding, the admission rules
 * of an inbound event and the topology of subjects, streams and buckets every service and publisher
 * derives its names from. Pure: no Nest, no NATS, no environment, no clock, no randomness.
 */

// key token (the one encoding of an entity key)
export {
  encodeKeyToken,
  decodeKeyToken,
  isCanonicalKeyToken,
  keyFromText,
  validateEntityKey,
  DEFAULT_MAX_KEY_BYTES,
} from './key-token.js';
export type { EntityKeyLimits, EntityKeyValidation } from './key-token.js';

// partition function (matches the server's {{partition(P,1)}})
export { partitionOf, assertPartitionCount, MAX_PARTITIONS } from './partition.js';

// hot-key sharding (memory-free agents only)
export { shardKey, unshardKey } from './shard-key.js';
export type { UnshardedKey } from './shard-key.js';

// admission rules of an inbound event (ingress and direct publishing)
export { admitAgent, keyRefusal, payloadRefusal, eventRefusal, screenEvent } from './event-admission.js';
export type { EventLimits, AgentAdmission, InboundEvent } from './event-admission.js';

// vocabularies
export { InboxKind, isInboxKind } from './inbox-kind.js';
export { IngestLane, isIngestLane, inboxKindOfLane } from './ingest-lane.js';

// topology (subjects, streams, buckets)
export { rendezvousOwner, assignPartitions } from './rendezvous.js';
export { createTopology, DEFAULT_SUBJECT_PREFIX, SUBJECT_PREFIX_PATTERN, TOOL_NAME_PATTERN, UNNAMED_AGENT } from './topology.js';
export type {
  Topology,
  TopologyOptions,
  TopologyStreams,
  TopologyBuckets,
  StreamSpec,
  InboxAddress,
  IngestAddress,
} from './topology.js';

// erasure: the digest that names an erased entity, and where a key lives
export { entityDigest } from './entity-digest.js';
export { erasureScope, kvStreamName, kvSubject, parkedMarkerKey, timerIndexKey } from './erasure-scope.js';
export type { ErasureScope, StreamFilter } from './erasure-scope.js';

// errors
export { RoutingError, KeyTokenError, ShardKeyError } from './errors.js';

// the core's addressing port over a topology
export { topologyAddressing, type TopologyAddressingOptions } from './topology-addressing.js';
