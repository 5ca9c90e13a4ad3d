/**
 * The benchmark's side-effecting no-op tool, run by the real effector (`AGENTS_TOOL_MODULES`):
 * it takes no arguments and returns `{}` at once, so a round trip through it measures the
 * runtime's suspend → effector → resume machinery and none of a tool's own time.
 */
import { defineTool } from '#sdk';
import { NOOP_TOOL } from './bench-agents.js';

export default defineTool({
  name: NOOP_TOOL,
  description: 'Does nothing and answers {} (benchmark).',
  sideEffect: true,
  handler() {
    return {};
  },
});
