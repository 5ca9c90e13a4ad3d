/**
 * A deterministic {@link Addressing} for specs: the production subject shapes with the key as
 * lowercase hex instead of the routing lib's key token (core must not import `#routing`).
 */
import { createHash } from 'node:crypto';
import type { Addressing } from '../actor/addressing.js';
import { entityKeyHex } from '../ids/entity-key-hex.js';

export const testAddressing: Addressing = {
  output: (agent, key) => `agents.output.${agent}.${entityKeyHex(key)}`,
  error: (agent, reason) => `agents.errors.${agent}.${reason}`,
  intent: (agent, tool) => `agents.intents.${agent}.${tool}`,
  approvalRequest: (agent, key) => `agents.approval-requests.${agent}.${entityKeyHex(key)}`,
  inboxStream: 'AGENTS_INBOX',
};

/**
 * {@link testAddressing} of a deployment that journals completed activations' model responses
 * (`agents.journal.<agent>.<sha256 of the key>`, as the routing lib names them; decision 0073).
 */
export const journalingTestAddressing: Addressing = {
  ...testAddressing,
  journal: (agent, key) => `agents.journal.${agent}.${createHash('sha256').update(key).digest('hex')}`,
};
