/**
 * Reads the approvals view from the streams (requests from the intents stream, decisions from the
 * inbox) and submits decisions through the ordinary approval path: `AgentsClient.publishApproval`
 * into the key's approvals lane, with the signed-in principal as approver. The key's activation
 * applies the first decision and ignores the rest; the console refuses to submit a decision for a
 * request it already sees decided or expired, and when two operators race, the page shows whichever
 * decision the inbox holds first.
 */
import { decodeInboxEnvelope, decodeToolIntent, IntentKind } from '#core';
import { decodeKeyToken, encodeKeyToken } from '#routing';
import { approvalBoard, type ApprovalDecisionView, type ApprovalRequestView, type ApprovalRow } from './approval-board.js';
import { keyText, type ConsoleNats } from './console-nats.js';
import { storedMessages } from './stored-messages.js';

/** Every approval request the intents stream holds, joined with its decision. */
export async function readApprovals(nats: ConsoleNats, nowMs: number): Promise<ApprovalRow[]> {
  const { topology } = nats;
  const requests: ApprovalRequestView[] = [];
  for (const msg of await storedMessages(nats.js, { stream: topology.streams.intents.name, filter: `${topology.prefix}.approval-requests.>`, limit: nats.maxMessages })) {
    try {
      const intent = decodeToolIntent(msg.data);
      if (intent.kind !== IntentKind.Approval) continue;
      requests.push({
        intentId: intent.intentId,
        agent: intent.agent,
        key: keyText(intent.entityKey),
        keyToken: encodeKeyToken(intent.entityKey),
        tool: intent.toolName,
        argsJson: intent.argsJson,
        requestedAtMs: intent.createdAtMs,
        deadlineMs: intent.expiresAtMs,
      });
    } catch {
      // not an approval request the console can read: leave it to `tail approval-requests`
    }
  }
  const decisions: ApprovalDecisionView[] = [];
  for (const msg of await storedMessages(nats.js, { stream: topology.streams.inbox.name, filter: `${topology.prefix}.inbox.*.*.*.approval`, limit: nats.maxMessages })) {
    try {
      const envelope = decodeInboxEnvelope(msg.data);
      if (envelope.payload.kind === 'approval') decisions.push({ ...envelope.payload.approval });
    } catch {
      // an undecodable element became an error record; it decided nothing
    }
  }
  return approvalBoard(requests, decisions, nowMs);
}

/** The outcome of a decision submitted from the page. */
export type DecisionOutcome =
  | { readonly kind: 'submitted'; readonly intentId: string; readonly approved: boolean; readonly approver: string }
  | { readonly kind: 'already-decided'; readonly row: ApprovalRow }
  | { readonly kind: 'expired'; readonly row: ApprovalRow }
  | { readonly kind: 'unknown-request' };

/** What an operator decided. */
export interface DecisionRequest {
  readonly agent: string;
  readonly keyToken: string;
  readonly intentId: string;
  readonly approved: boolean;
  readonly reason: string;
  /** The signed-in principal's id. */
  readonly approver: string;
  readonly nowMs: number;
}

/** Submits a decision unless the request is already decided, expired or unknown. */
export async function submitDecision(nats: ConsoleNats, request: DecisionRequest): Promise<DecisionOutcome> {
  const rows = await readApprovals(nats, request.nowMs);
  const row = rows.find((r) => r.intentId === request.intentId && r.agent === request.agent && r.keyToken === request.keyToken);
  if (row === undefined) return { kind: 'unknown-request' };
  if (row.status === 'approved' || row.status === 'denied') return { kind: 'already-decided', row };
  if (row.status === 'expired') return { kind: 'expired', row };
  await nats.client.publishApproval(request.agent, decodeKeyToken(request.keyToken), {
    intentId: request.intentId,
    approved: request.approved,
    approver: request.approver,
    reason: request.reason,
    decidedAtMs: request.nowMs,
  });
  return { kind: 'submitted', intentId: request.intentId, approved: request.approved, approver: request.approver };
}
