import type { ArgumentSchema } from './tool-definition.js';
import { ToolArgumentError } from './tool-errors.js';

/**
 * Validates `args` with a tool's schema and returns the parsed value. Throws
 * {@link ToolArgumentError} naming every issue; the tool is never invoked with invalid arguments.
 */
export async function validateArguments<A>(tool: string, schema: ArgumentSchema<A> | undefined, args: unknown): Promise<A> {
  if (schema === undefined) {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ToolArgumentError(tool, `arguments of '${tool}' must be a JSON object`);
    return args as A;
  }
  if (typeof schema === 'function') {
    try {
      return schema(args);
    } catch (error) {
      throw new ToolArgumentError(tool, `arguments of '${tool}' are invalid: ${(error as Error).message}`, { cause: error });
    }
  }
  const result = await schema['~standard'].validate(args);
  if (result.issues !== undefined) {
    const problems = result.issues.map((i) => (i.path && i.path.length > 0 ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
    throw new ToolArgumentError(tool, `arguments of '${tool}' are invalid: ${problems.join('; ')}`);
  }
  return result.value;
}
