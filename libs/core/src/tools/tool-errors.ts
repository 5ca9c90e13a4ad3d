import { TerminalError } from '../errors/runtime-error.js';

/** Base of tool-usage errors. Terminal by type: the same call fails the same way on a retry. */
export class ToolError extends TerminalError {
  override readonly name: string = 'ToolError';
  readonly tool: string;
  constructor(tool: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.tool = tool;
  }
}

/** No tool of that name is registered. */
export class ToolNotFoundError extends ToolError {
  override readonly name = 'ToolNotFoundError';
}

/** The arguments did not pass the tool's schema. */
export class ToolArgumentError extends ToolError {
  override readonly name = 'ToolArgumentError';
}

/**
 * A side-effecting tool was called inline (`ctx.runTool`), or a read-only tool was staged as an
 * intent. Side effects only go through intents (invariant 5).
 */
export class SideEffectToolError extends ToolError {
  override readonly name = 'SideEffectToolError';
}
