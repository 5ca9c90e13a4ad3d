/**
 * The benchmark's no-op agent: no memory, no model, no intents. It outputs the event bytes
 * verbatim, so every output carries the load generator's correlation id and the activation does
 * nothing the runtime itself does not have to do (read, apply, commit, publish, ack).
 */
import { complete, defineAgent } from '#sdk';
import { NOOP_AGENT } from './bench-agents.js';

export default defineAgent({
  name: NOOP_AGENT,
  async handler(ctx) {
    return complete(ctx.event);
  },
});
