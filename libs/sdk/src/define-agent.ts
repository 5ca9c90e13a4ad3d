import { AGENT_NAME_PATTERN, type AgentDefinition, type StandardSchema } from '#core';

/**
 * Declares an agent. A typed identity over the plain object `{ name, handler }`: an agent module
 * written in plain JavaScript can export that object without importing anything.
 *
 * The handler runs once per element of one key, one element at a time per key. It must be a
 * function of its context only (no wall clock, no randomness of its own, no side effects outside
 * `ctx`): a retried or replayed activation then walks the same path, mints the same intent ids and
 * hits the replay cache instead of the model (invariants 2 and 3).
 *
 * @example
 * export default defineAgent({
 *   name: 'hello',
 *   async handler(ctx) {
 *     const count = (ctx.memory.getJson<number>('count') ?? 0) + 1;
 *     ctx.memory.setJson('count', count);
 *     return complete({ count });
 *   },
 * });
 * With an `event` schema (any Standard Schema: zod, valibot, arktype) `ctx.event` is the parsed,
 * typed event; without one it is the event's bytes.
 *
 * @example
 * const Refund = z.object({ orderId: z.string(), amount: z.number().positive() });
 * export default defineAgent({
 *   name: 'refund',
 *   event: Refund,
 *   handler(ctx) {
 *     const amount = ctx.event?.amount ?? 0; // number
 *     return complete({ amount });
 *   },
 * });
 * @throws TypeError when the name is not a valid agent name (it is a NATS subject token), `event`
 * is not a Standard Schema, or `shards` (hot-key sharding, memory-free agents only) is not a
 * positive integer, or `isolation` is neither `event-loop` nor `worker`.
 */
export function defineAgent<TEvent>(definition: AgentDefinition<TEvent> & { readonly event: StandardSchema<TEvent> }): AgentDefinition<TEvent>;
export function defineAgent(definition: AgentDefinition<Uint8Array> & { readonly event?: undefined }): AgentDefinition<Uint8Array>;
export function defineAgent(definition: AgentDefinition): AgentDefinition {
  if (!AGENT_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(`agent name '${definition.name}' must match ${AGENT_NAME_PATTERN.source}`);
  }
  if (typeof definition.handler !== 'function') throw new TypeError(`agent '${definition.name}' needs a handler function`);
  const standard = (definition.event as { readonly '~standard'?: { readonly validate?: unknown } } | undefined)?.['~standard'];
  if (definition.event !== undefined && typeof standard?.validate !== 'function') {
    throw new TypeError(`agent '${definition.name}' has an event schema that is not a Standard Schema (zod, valibot, arktype, …)`);
  }
  if (definition.shards !== undefined && !(Number.isSafeInteger(definition.shards) && definition.shards >= 1)) {
    throw new TypeError(`agent '${definition.name}' has shards = ${String(definition.shards)}; it must be a positive integer`);
  }
  if (definition.isolation !== undefined && definition.isolation !== 'event-loop' && definition.isolation !== 'worker') {
    throw new TypeError(`agent '${definition.name}' has isolation = ${String(definition.isolation)}; it must be 'event-loop' or 'worker'`);
  }
  return definition;
}
