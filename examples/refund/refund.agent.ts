/**
 * The refund agent: the re-injection path end to end. Small refunds go straight to the `refund`
 * tool; refunds above the threshold first ask a human. Each step stages an intent and suspends;
 * the answer (a decision, then the tool's result) resumes the agent on the same key.
 *
 * Event: `{"orderId": "o-1", "amount": 250, "reason": "damaged"}`.
 * Outputs: `{"status": "refunded", "refundId": "...", ...}`, `{"status": "denied", ...}` or
 * `{"status": "failed", ...}`.
 */
import { complete, defineAgent, suspend, type ActivationContext } from '#sdk';
import refundTool from './refund.tool.js';

/** Refunds above this need a human's approval. */
export const APPROVAL_THRESHOLD = 100;

interface RefundRequest {
  readonly orderId: string;
  readonly amount: number;
  readonly reason?: string;
}

type Stage = { readonly stage: 'approval' | 'refund'; readonly request: RefundRequest };

function refund(ctx: ActivationContext, request: RefundRequest) {
  ctx.act('refund', { orderId: request.orderId, amount: request.amount }, { ttlMs: 10 * 60_000 });
  return suspend({ snapshot: JSON.stringify({ stage: 'refund', request } satisfies Stage), timeoutMs: 15 * 60_000 });
}

export default defineAgent({
  name: 'refund',
  tools: [refundTool],
  suspension: { onTimeout: 'deny', timeoutMs: 24 * 3_600_000 },
  validateEvent(event) {
    try {
      const value = JSON.parse(new TextDecoder().decode(event)) as Partial<RefundRequest>;
      if (typeof value.orderId !== 'string' || typeof value.amount !== 'number' || value.amount <= 0) return 'expected {"orderId": string, "amount": number > 0}';
      return undefined;
    } catch {
      return 'the event must be JSON';
    }
  },
  handler(ctx) {
    if (!ctx.isResume) {
      const request = ctx.eventJson<RefundRequest>();
      ctx.memory.append('requests', JSON.stringify(request), { maxItems: 20 });
      if (request.amount <= APPROVAL_THRESHOLD) return refund(ctx, request);
      ctx.requestApproval({ orderId: request.orderId, amount: request.amount, reason: request.reason ?? '' }, { ttlMs: 24 * 3_600_000 });
      return suspend({ snapshot: JSON.stringify({ stage: 'approval', request } satisfies Stage) });
    }
    const { stage, request } = ctx.snapshotJson<Stage>() as Stage;
    if (stage === 'approval') {
      const decision = ctx.resumeApproval;
      if (decision?.approved !== true) return complete({ status: 'denied', orderId: request.orderId, by: decision?.approver ?? '', reason: decision?.reason ?? '' });
      return refund(ctx, request);
    }
    const result = ctx.resumeResult;
    if (result?.status !== 'ok') return complete({ status: 'failed', orderId: request.orderId, error: result?.errorMessage ?? 'no result' });
    return complete({ status: 'refunded', ...result.json<Record<string, unknown>>() });
  },
});
