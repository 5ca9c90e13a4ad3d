import { describeIssues } from '../agent/event-schema.js';
import { TerminalError } from '../errors/runtime-error.js';
import type { TypedTool } from './tool-definition.js';

/**
 * A tool result's value checked against the tool's `output` schema (`ctx.toolResult`): the value
 * itself when the tool declares none. A value failing the schema throws a `TerminalError` naming
 * the issues, so the activation fails closed (a redelivery or replay meets the same stored result
 * and fails the same way). The schema must validate synchronously.
 */
export function checkToolOutput<R>(tool: TypedTool<R>, value: unknown): R {
  if (tool.output === undefined) return value as R;
  const checked = tool.output['~standard'].validate(value);
  if (checked instanceof Promise) throw new TypeError(`the output schema of tool '${tool.name}' validates asynchronously; ctx.toolResult needs a synchronous one`);
  if (checked.issues !== undefined) throw new TerminalError(`the result of tool '${tool.name}' does not match its output schema: ${describeIssues(checked.issues)}`);
  return checked.value;
}
