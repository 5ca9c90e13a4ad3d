/**
 * The approvals view, from what the streams hold: every approval request (the intents stream's
 * `approval-requests` subjects) joined with the decisions the inbox received for it. The first
 * decision in inbox order is the one the key's activation applied (the key is processed one
 * element at a time, in inbox order), so it is shown as the decision; later ones are listed as
 * ignored. A request with no decision is pending until its deadline, then expired. Pure.
 */

/** An approval request as the console shows it. */
export interface ApprovalRequestView {
  readonly intentId: string;
  readonly agent: string;
  /** The key as text (UTF-8, lossy for binary keys) and its canonical token. */
  readonly key: string;
  readonly keyToken: string;
  readonly tool: string;
  /** The arguments the agent staged, as JSON text. */
  readonly argsJson: string;
  readonly requestedAtMs: number;
  readonly deadlineMs: number;
}

/** A decision read back from the inbox. */
export interface ApprovalDecisionView {
  readonly intentId: string;
  readonly approved: boolean;
  readonly approver: string;
  readonly reason: string;
  readonly decidedAtMs: number;
}

/** One row of the approvals view. */
export type ApprovalRow = ApprovalRequestView &
  (
    | { readonly status: 'pending' }
    | { readonly status: 'expired' }
    | { readonly status: 'approved' | 'denied'; readonly decision: ApprovalDecisionView; readonly ignored: readonly ApprovalDecisionView[] }
  );

/** Joins requests and decisions (both in stream order) into rows, pending first, each group oldest first. */
export function approvalBoard(requests: readonly ApprovalRequestView[], decisions: readonly ApprovalDecisionView[], nowMs: number): ApprovalRow[] {
  const byIntent = new Map<string, ApprovalDecisionView[]>();
  for (const decision of decisions) byIntent.set(decision.intentId, [...(byIntent.get(decision.intentId) ?? []), decision]);
  const seen = new Set<string>();
  const rows: ApprovalRow[] = [];
  for (const request of requests) {
    if (seen.has(request.intentId)) continue; // a republished request (outbox after a crash) is one request
    seen.add(request.intentId);
    const [first, ...ignored] = byIntent.get(request.intentId) ?? [];
    if (first !== undefined) rows.push({ ...request, status: first.approved ? 'approved' : 'denied', decision: first, ignored });
    else rows.push({ ...request, status: request.deadlineMs > 0 && request.deadlineMs <= nowMs ? 'expired' : 'pending' });
  }
  const rank = (row: ApprovalRow): number => (row.status === 'pending' ? 0 : 1);
  return rows.sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? a.requestedAtMs - b.requestedAtMs : b.requestedAtMs - a.requestedAtMs));
}
