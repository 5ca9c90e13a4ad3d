/**
 * The hello agent: keeps a per-key visit counter in working memory and asks the model for a
 * greeting. A retried or replayed activation reads the same counter and gets the greeting from
 * the replay cache, so it commits the same state and publishes the same bytes.
 *
 * Event: `{"name": "Ada"}` (any JSON object; `name` optional).
 * Output: `{"greeting": "...", "visits": 3, "seq": 2}`.
 */
import { complete, defineAgent } from '#sdk';

interface HelloEvent {
  readonly name?: string;
}

export default defineAgent({
  name: 'hello',
  validateEvent(event) {
    if (event.length === 0) return undefined;
    try {
      const value: unknown = JSON.parse(new TextDecoder().decode(event));
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : 'the event must be a JSON object';
    } catch {
      return 'the event must be JSON';
    }
  },
  async handler(ctx) {
    const event = ctx.event !== undefined && ctx.event.length > 0 ? ctx.eventJson<HelloEvent>() : {};
    const name = event.name ?? ctx.keyText;
    const visits = (ctx.memory.getJson<number>('visits') ?? 0) + 1;
    ctx.memory.setJson('visits', visits);
    ctx.memory.append('names', name, { maxItems: 8 });
    const reply = await ctx.callModel({
      model: 'fake-1',
      messages: [
        { role: 'system', content: 'You greet people warmly in one short sentence.' },
        { role: 'user', content: `Greet ${name}. This is visit number ${visits}.` },
      ],
      params: { temperature: 0 },
    });
    return complete({ greeting: reply.text, visits, seq: ctx.seq });
  },
});
