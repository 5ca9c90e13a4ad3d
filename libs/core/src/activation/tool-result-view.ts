import type { ApprovalView, ToolResultStatusName, ToolResultView } from '../agent/resume-views.js';
import type { ApprovalDoc, ToolResultDoc } from '../actor/inbox-element.js';
import { ToolResultStatus } from '../actor/inbox-element.js';

const utf8 = new TextDecoder();

const statusNames: Record<number, ToolResultStatusName> = {
  [ToolResultStatus.Ok]: 'ok',
  [ToolResultStatus.Error]: 'error',
  [ToolResultStatus.Expired]: 'expired',
  [ToolResultStatus.Rejected]: 'rejected',
};

/** The agent's read-only view of a tool result (an unspecified status reads as `error`). */
export function toolResultView(result: ToolResultDoc): ToolResultView {
  return {
    intentId: result.intentId,
    status: statusNames[result.status] ?? 'error',
    payload: result.payload,
    json: <T>() => (result.payload.length === 0 ? undefined : (JSON.parse(utf8.decode(result.payload)) as T)),
    errorMessage: result.errorMessage,
    completedAtMs: result.completedAtMs,
  };
}

/** The agent's read-only view of an approval decision. */
export function approvalView(approval: ApprovalDoc): ApprovalView {
  return {
    intentId: approval.intentId,
    approved: approval.approved,
    approver: approval.approver,
    reason: approval.reason,
    decidedAtMs: approval.decidedAtMs,
  };
}
