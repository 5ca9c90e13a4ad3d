/**
 * The core's addressing port over a deployment's topology: where an activation's outputs, error
 * records, intents, approval requests and replay journal messages are published. Pure; no side
 * effects on import.
 */
import type { Addressing } from '#core';
import { entityDigest } from './entity-digest.js';
import { encodeKeyToken } from './key-token.js';
import type { Topology } from './topology.js';

/** How the addressing is used. */
export interface TopologyAddressingOptions {
  /**
   * Journal completed activations' model responses (`activator.replayJournal`, decision 0073).
   * Default false: an offline replay and the test kit journal nothing; the activator passes its setting.
   */
  readonly journal?: boolean;
}

/** The subjects `topology` gives the core's outbox entries (the activator's and an offline replay's). */
export function topologyAddressing(topology: Topology, options: TopologyAddressingOptions = {}): Addressing {
  return {
    output: (agent, key) => topology.output(agent, encodeKeyToken(key)),
    error: (agent, reason) => topology.errors(agent, reason),
    intent: (agent, tool) => topology.intents(agent, tool),
    approvalRequest: (agent, key) => topology.approvalRequests(agent, encodeKeyToken(key)),
    inboxStream: topology.streams.inbox.name,
    ...(options.journal === true ? { journal: (agent: string, key: Uint8Array) => topology.journal(agent, entityDigest(key)) } : {}),
  };
}
