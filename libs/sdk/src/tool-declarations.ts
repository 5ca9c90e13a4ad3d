import type { AnyToolDefinition, JsonValue } from '#core';

/** The provider shape of the declarations: OpenAI-compatible chat completions, or Anthropic Messages. */
export type ToolDeclarationFormat = 'openai' | 'anthropic';

/**
 * The JSON Schema of a tool's arguments: its `parameters` when given, else what its schema's
 * Standard JSON Schema converter produces (zod 4 has one), else any object (a tool without a
 * schema accepts any JSON object).
 *
 * @throws TypeError when the tool has a schema that cannot describe itself as JSON Schema (a parsing
 * function, or a library without Standard JSON Schema): give the tool `parameters` then.
 */
export function toolParameters(tool: AnyToolDefinition): { readonly [name: string]: JsonValue } {
  if (tool.parameters !== undefined) return tool.parameters;
  if (tool.schema === undefined) return { type: 'object' };
  const converter = typeof tool.schema === 'function' ? undefined : tool.schema['~standard'].jsonSchema;
  if (converter === undefined) {
    throw new TypeError(`tool '${tool.name}' has a schema that cannot produce JSON Schema (no Standard JSON Schema converter): give the tool 'parameters'`);
  }
  const { $schema: _dialect, ...schema } = converter.input({ target: 'draft-2020-12' });
  return JSON.parse(JSON.stringify(schema)) as { readonly [name: string]: JsonValue };
}

/**
 * The tool declarations a model is offered (`ModelRequest.tools`), from the same definitions the
 * effector runs: agents stop hand-writing tool JSON, and the declaration cannot drift from the
 * schema that validates the arguments. Deterministic: the same tools give the same bytes, so the
 * request stays a replay-cache hit across retries and replays.
 *
 * @example
 * const reply = await ctx.callModel({ model: 'gpt-4o-mini', messages, tools: toolDeclarations([refundTool]) });
 */
export function toolDeclarations(tools: readonly AnyToolDefinition[], format: ToolDeclarationFormat = 'openai'): JsonValue[] {
  return tools.map((tool): JsonValue => {
    const parameters = toolParameters(tool);
    const described: { [name: string]: JsonValue } = { name: tool.name };
    if (tool.description) described.description = tool.description;
    if (format === 'anthropic') return { ...described, input_schema: parameters };
    return { type: 'function', function: { ...described, parameters } };
  });
}
