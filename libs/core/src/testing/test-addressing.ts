/**
 * A deterministic {@link Addressing} for specs: the production subject shapes with the key as
 * lowercase hex instead of the routing lib's key token (core must not import `#routing`).
 */
import type { Addressing } from '../actor/addressing.js';
import { entityKeyHex } from '../ids/entity-key-hex.js';

export const testAddressing: Addressing = {
  output: (agent, key) => `agents.output.${agent}.${entityKeyHex(key)}`,
  error: (agent, reason) => `agents.errors.${agent}.${reason}`,
  intent: (agent, tool) => `agents.intents.${agent}.${tool}`,
  approvalRequest: (agent, key) => `agents.approval-requests.${agent}.${entityKeyHex(key)}`,
  inboxStream: 'AGENTS_INBOX',
};
