import type { ErrorReason } from '../vocabulary/error-reason.js';

/**
 * Where outbox entries go. The core decides *what* a commit owes the world; this port (built
 * from the deployment's subject prefix by libs/routing) decides the subjects, so the core never
 * encodes keys into subjects itself.
 */
export interface Addressing {
  /** `agents.output.<agent>.<keyToken>` */
  output(agent: string, key: Uint8Array): string;
  /** `agents.errors.<agent>.<reason>` */
  error(agent: string, reason: ErrorReason): string;
  /** `agents.intents.<agent>.<tool>` */
  intent(agent: string, tool: string): string;
  /** `agents.approval-requests.<agent>.<keyToken>` */
  approvalRequest(agent: string, key: Uint8Array): string;
  /** The inbox stream's name (`AGENTS_INBOX`): error records name their element in it. */
  readonly inboxStream: string;
  /**
   * `agents.journal.<agent>.<keyDigest>`: where a completed activation's model responses are
   * journaled for offline replay (decision 0073). Absent: the deployment keeps no replay journal
   * (`activator.replayJournal: false`, and every offline replay), and no commit publishes one.
   */
  readonly journal?: (agent: string, key: Uint8Array) => string;
}
