/**
 * The `reserve-stock` tool: a side-effecting call to a warehouse. The effector runs it once per
 * intent id as far as it can tell; after a crash between the call and the recording of its result
 * it MAY run again with the same intent id, which is why the reservation id is derived from it (a
 * real warehouse API would take `intent.intentId` as its idempotency key).
 */
import { defineTool } from '@nats-agents/sdk';
import { z } from 'zod';

/** What the agent asks the warehouse for. */
export const ReserveStockArgs = z.object({
  sku: z.string().min(1),
  quantity: z.number().int().positive(),
});

/** What the warehouse answers: the agent's resumed result is checked against it. */
export const ReserveStockResult = z.object({
  reservationId: z.string(),
  sku: z.string(),
  quantity: z.number().int(),
});

export default defineTool({
  name: 'reserve-stock',
  description: 'Reserve units of a product in the warehouse.',
  sideEffect: true,
  schema: ReserveStockArgs,
  output: ReserveStockResult,
  timeoutMs: 10_000,
  handler(args, { intent }) {
    return { reservationId: `rs-${(intent?.intentId ?? 'local').slice(0, 8)}`, sku: args.sku, quantity: args.quantity };
  },
});
