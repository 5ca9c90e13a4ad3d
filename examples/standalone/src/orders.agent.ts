/**
 * The `orders` agent: one key per order. An order event (checked by its zod schema, so a bad one
 * becomes a `malformed_input` error record naming the issues and never reaches the handler)
 * reserves stock through the typed `reserve-stock` tool and suspends; the tool's result resumes the
 * agent, which confirms the order or reports why it could not. An order of nothing is confirmed at
 * once, with no tool call.
 *
 * Redelivery and replay: the handler reads only its context, so a retried or replayed activation
 * stages the same intent id and the same output bytes; the effector then runs the tool once.
 *
 * Event: `{"orderId": "o-1", "sku": "tea", "quantity": 2}`.
 * Outputs: `{"status": "confirmed", ...}` or `{"status": "failed", ...}`.
 */
import { complete, defineAgent, suspend } from '@nats-agents/sdk';
import { z } from 'zod';
import reserveStock from './reserve-stock.tool.js';

/** An order as the agent receives it on `agents.events.orders.<orderId>`. */
export const OrderPlaced = z.object({
  orderId: z.string().min(1),
  sku: z.string().min(1),
  quantity: z.number().int().nonnegative(),
});

export default defineAgent({
  name: 'orders',
  event: OrderPlaced,
  tools: [reserveStock],
  suspension: { onTimeout: 'deny', timeoutMs: 15 * 60_000 },
  handler(ctx) {
    const reserved = ctx.toolResult(reserveStock);
    if (reserved !== undefined) {
      if (reserved.status !== 'ok') return complete({ status: 'failed', orderId: ctx.keyText, error: reserved.errorMessage });
      return complete({ status: 'confirmed', orderId: ctx.keyText, reservationId: reserved.value.reservationId });
    }
    // A passed suspension deadline (policy 'deny') arrives above as the tool's result, expired.
    if (ctx.isResume) return complete({ status: 'failed', orderId: ctx.keyText, error: 'resumed without the warehouse answer' });
    const order = ctx.event;
    if (order === undefined) return complete({ status: 'failed', orderId: ctx.keyText, error: 'no order' });
    ctx.memory.append('orders', JSON.stringify(order), { maxItems: 10 });
    if (order.quantity === 0) return complete({ status: 'confirmed', orderId: order.orderId, reservationId: null });
    ctx.act(reserveStock, { sku: order.sku, quantity: order.quantity }, { ttlMs: 10 * 60_000 });
    return suspend();
  },
});
