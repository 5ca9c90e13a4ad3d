// The addressing port is where the core's outbox entries go; journaling is a deployment setting, so whether the port offers a journal subject, and that it names the key by digest, is pinned here.
import { describe, expect, it } from 'vitest';
import { entityDigest } from './entity-digest.js';
import { encodeKeyToken, keyFromText } from './key-token.js';
import { topologyAddressing } from './topology-addressing.js';
import { createTopology } from './topology.js';

const topology = createTopology({ partitions: 4 });
const key = keyFromText('user@example.com');

describe('topologyAddressing', () => {
  it('offers no journal subject unless the deployment journals', () => {
    expect(topologyAddressing(topology).journal).toBeUndefined();
    expect(topologyAddressing(topology, { journal: false }).journal).toBeUndefined();
  });

  it('journals a key under its digest, so the subject carries no key byte', () => {
    const journal = topologyAddressing(topology, { journal: true }).journal!;
    expect(journal('refund', key)).toBe(`agents.journal.refund.${entityDigest(key)}`);
    expect(journal('refund', key)).not.toContain(encodeKeyToken(key));
  });

  it('addresses outputs and approval requests by the key token, as before', () => {
    const addressing = topologyAddressing(topology, { journal: true });
    expect(addressing.output('refund', key)).toBe(topology.output('refund', encodeKeyToken(key)));
    expect(addressing.approvalRequest('refund', key)).toBe(topology.approvalRequests('refund', encodeKeyToken(key)));
  });
});
