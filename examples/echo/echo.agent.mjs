// A plain JavaScript agent with no imports: an agent is just `{ name, handler }` and an outcome
// is just `{ kind: 'complete', output }`. It echoes each event with the key's running count.
export default {
  name: 'echo',
  async handler(ctx) {
    const count = (ctx.memory.getJson('count') ?? 0) + 1;
    ctx.memory.setJson('count', count);
    return { kind: 'complete', output: { echo: ctx.event ? ctx.eventText() : '', count, seq: ctx.seq } };
  },
};
