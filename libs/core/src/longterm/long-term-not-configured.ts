import { TerminalError } from '../errors/runtime-error.js';

/** The agent used `ctx.memory.longterm` but the deployment has no long-term tier (`longterm.uri`). */
export class LongTermNotConfigured extends TerminalError {
  override readonly name = 'LongTermNotConfigured';
  constructor() {
    super('the long-term tier is not configured: run a memory-store with longterm.uri and start activators with AGENTS_LONGTERM_ENABLED=true (or the URI) to enable ctx.memory.longterm');
  }
}
