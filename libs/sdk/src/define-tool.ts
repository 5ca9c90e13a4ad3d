import { TOOL_NAME_PATTERN, type ToolDefinition } from '#core';

/**
 * Declares a tool. A typed identity over the plain object `{ name, sideEffect, handler }`: a tool
 * module written in plain JavaScript can export that object without importing anything, and the
 * effector loads either form (`effector.toolModules`).
 *
 * The argument type is inferred from `schema` (any Standard Schema such as zod 4, or a parsing
 * function), so `handler` receives validated, typed arguments; without a schema the arguments are
 * the intent's JSON object as is.
 *
 * A side-effecting tool (`sideEffect: true`) runs in the effector, once per intent id as far as
 * the effector can tell: it MAY run again after a crash or a lost lease between its start and the
 * recording of its result. Pass `context.intent.intentId` downstream as an idempotency key to make
 * the effect itself exactly-once; a re-execution carries the same id. Throw a `RetryableError`
 * for a failure worth retrying (up to `retries` extra attempts, default 2); any other throw is a
 * final `ERROR` result. Secrets come from `context.secret('env:NAME' | 'file:/path')`, never from
 * arguments.
 *
 * @example
 * export default defineTool({
 *   name: 'charge',
 *   sideEffect: true,
 *   schema: z.object({ account: z.string(), cents: z.number().int().positive() }),
 *   async handler(args, { intent, secret, signal }) {
 *     return payments.charge(args, { idempotencyKey: intent?.intentId, apiKey: secret?.('env:PAYMENTS_KEY'), signal });
 *   },
 * });
 * With an `output` schema the agent's resumed result is typed and checked: `ctx.toolResult(tool)`.
 * Agents stage the intent with the definition itself, `ctx.act(tool, args)`, so the arguments are
 * typed by `schema`; `toolDeclarations([tool])` describes it to a model.
 *
 * @throws TypeError when the name is not a valid tool name (it is a NATS subject token), the
 * handler is not a function or `sideEffect` is not a boolean.
 */
export function defineTool<A = unknown, R = unknown>(definition: ToolDefinition<A, R>): ToolDefinition<A, R> {
  if (typeof definition.name !== 'string' || !TOOL_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(`tool name '${String(definition.name)}' must match ${TOOL_NAME_PATTERN.source}`);
  }
  if (typeof definition.handler !== 'function') throw new TypeError(`tool '${definition.name}' needs a handler function`);
  if (typeof definition.sideEffect !== 'boolean') throw new TypeError(`tool '${definition.name}' must say whether it has side effects (sideEffect: true | false)`);
  const output = (definition.output as { readonly '~standard'?: { readonly validate?: unknown } } | undefined)?.['~standard'];
  if (definition.output !== undefined && typeof output?.validate !== 'function') throw new TypeError(`tool '${definition.name}' has an output schema that is not a Standard Schema`);
  return definition;
}
