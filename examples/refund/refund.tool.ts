/**
 * The refund tool: a side-effecting tool the effector runs once per intent id. It stands in for a
 * payment provider's refund API; a real one would pass `intent.intentId` as the provider's
 * idempotency key, so even a re-execution after a crash refunds once.
 */
import { z } from 'zod';
import { defineTool } from '#sdk';

const RefundArgs = z.object({
  orderId: z.string().min(1),
  amount: z.number().positive(),
});

export default defineTool({
  name: 'refund',
  description: 'Refund an order (amount in the order currency).',
  sideEffect: true,
  schema: RefundArgs,
  timeoutMs: 10_000,
  handler(args, { intent }) {
    // Deterministic receipt derived from the intent id: the same intent always yields the same refund.
    return { refundId: `rf-${(intent?.intentId ?? 'local').slice(0, 8)}`, orderId: args.orderId, amount: args.amount };
  },
});
