// The curated index is #routing's public contract; this fails on any export change nobody reviewed.
import { describe, expect, it } from 'vitest';
import * as routing from './index.js';

describe('#routing public surface', () => {
  it('exports exactly the reviewed runtime names', () => {
    expect(Object.keys(routing).sort()).toEqual([
      'DEFAULT_MAX_KEY_BYTES',
      'DEFAULT_SUBJECT_PREFIX',
      'InboxKind',
      'IngestLane',
      'KeyTokenError',
      'MAX_PARTITIONS',
      'RoutingError',
      'SUBJECT_PREFIX_PATTERN',
      'ShardKeyError',
      'TOOL_NAME_PATTERN',
      'UNNAMED_AGENT',
      'admitAgent',
      'assertPartitionCount',
      'assignPartitions',
      'createTopology',
      'decodeKeyToken',
      'encodeKeyToken',
      'entityDigest',
      'erasureScope',
      'eventRefusal',
      'inboxKindOfLane',
      'isCanonicalKeyToken',
      'isInboxKind',
      'isIngestLane',
      'keyFromText',
      'keyRefusal',
      'kvStreamName',
      'kvSubject',
      'parkedMarkerKey',
      'partitionOf',
      'payloadRefusal',
      'rendezvousOwner',
      'screenEvent',
      'shardKey',
      'timerIndexKey',
      'topologyAddressing',
      'unshardKey',
      'validateEntityKey',
    ]);
  });
});
