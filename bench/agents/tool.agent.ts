/**
 * The benchmark's round-trip agent: on an event it stages one intent for the no-op tool and
 * suspends with the event bytes as its snapshot; the effector runs the tool and its result
 * resumes the key, which outputs the snapshot verbatim (so the load generator can correlate).
 * Two activations and two commits per event, one intent, one tool result: the re-injection path
 * of docs/two-paths.md with nothing else in it. A result that is not `ok` becomes an output the
 * load generator cannot match, which fails the run loudly.
 */
import { complete, defineAgent, suspend } from '#sdk';
import { NOOP_TOOL, TOOL_AGENT } from './bench-agents.js';
import noopTool from './noop.tool.js';

export default defineAgent({
  name: TOOL_AGENT,
  tools: [noopTool],
  handler(ctx) {
    if (!ctx.isResume) {
      ctx.act(NOOP_TOOL, {});
      return suspend({ snapshot: ctx.event, timeoutMs: 10 * 60_000 });
    }
    const result = ctx.resumeResult;
    if (result?.status !== 'ok' || ctx.snapshot === undefined) return complete({ benchFailure: `tool result ${result?.status ?? 'missing'}: ${result?.errorMessage ?? ''}` });
    return complete(ctx.snapshot);
  },
});
