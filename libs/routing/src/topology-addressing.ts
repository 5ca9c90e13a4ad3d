/**
 * The core's addressing port over a deployment's topology: where an activation's outputs, error
 * records, intents and approval requests are published. Pure; no side effects on import.
 */
import type { Addressing } from '#core';
import { encodeKeyToken } from './key-token.js';
import type { Topology } from './topology.js';

/** The subjects `topology` gives the core's outbox entries (the activator's and an offline replay's). */
export function topologyAddressing(topology: Topology): Addressing {
  return {
    output: (agent, key) => topology.output(agent, encodeKeyToken(key)),
    error: (agent, reason) => topology.errors(agent, reason),
    intent: (agent, tool) => topology.intents(agent, tool),
    approvalRequest: (agent, key) => topology.approvalRequests(agent, encodeKeyToken(key)),
    inboxStream: topology.streams.inbox.name,
  };
}
