/**
 * The benchmark's model agent: exactly one model call per activation (answered by the FakeLlm
 * with a fixed latency, see `model-script.ts`), then the event bytes verbatim as output so the
 * load generator can correlate. The request differs per event, so every call misses the replay
 * cache and reaches the provider; the answer is cached in the key's state like any model call.
 */
import { complete, defineAgent } from '#sdk';
import { MODEL_AGENT } from './bench-agents.js';

export default defineAgent({
  name: MODEL_AGENT,
  async handler(ctx) {
    await ctx.callModel({ model: 'bench-fake', messages: [{ role: 'user', content: ctx.eventText() }] });
    return complete(ctx.event);
  },
});
