/**
 * @packageDocumentation
 * Routing: the canonical key token, the partition function and the topology of subjects, streams
 * and buckets every service and publisher derives its names from. Pure: no Nest, no NATS, no
 * environment, no clock, no randomness.
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

// errors
export { RoutingError, KeyTokenError } from './errors.js';
