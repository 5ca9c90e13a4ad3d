import { AGENT_NAME_PATTERN, type AgentDefinition } from '#core';

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
 * @throws TypeError when the name is not a valid agent name (it is a NATS subject token), or
 * `shards` (hot-key sharding, memory-free agents only) is not a positive integer.
 */
export function defineAgent<const T extends AgentDefinition>(definition: T): T {
  if (!AGENT_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(`agent name '${definition.name}' must match ${AGENT_NAME_PATTERN.source}`);
  }
  if (typeof definition.handler !== 'function') throw new TypeError(`agent '${definition.name}' needs a handler function`);
  if (definition.shards !== undefined && !(Number.isSafeInteger(definition.shards) && definition.shards >= 1)) {
    throw new TypeError(`agent '${definition.name}' has shards = ${String(definition.shards)}; it must be a positive integer`);
  }
  return definition;
}
