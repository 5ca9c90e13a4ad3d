// Layer 1: defineTool is a typed identity — the schema types the handler's arguments — that
// refuses names which could not be a subject token, as the effector's loader would.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { validateArguments } from '#core';
import { defineTool } from './define-tool.js';

describe('defineTool', () => {
  it('returns the definition itself', () => {
    const definition = { name: 'charge', sideEffect: true, handler: () => 'ok' };
    expect(defineTool(definition)).toBe(definition);
  });

  it('types the handler arguments from a zod schema, which the effector validates with', async () => {
    const charge = defineTool({
      name: 'charge',
      sideEffect: true,
      schema: z.object({ account: z.string(), cents: z.coerce.number().int().positive() }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ account: string; cents: number }>();
        return { charged: args.cents };
      },
    });
    expect(await validateArguments(charge.name, charge.schema, { account: 'a-1', cents: '100' })).toEqual({ account: 'a-1', cents: 100 });
    await expect(validateArguments(charge.name, charge.schema, { account: 'a-1', cents: -1 })).rejects.toThrow(/cents/);
  });

  it.each(['Charge', '1charge', 'charge.refund', '', 'x'.repeat(65)])('refuses the name %j', (name) => {
    expect(() => defineTool({ name, sideEffect: true, handler: () => undefined })).toThrow(TypeError);
  });

  it('refuses a missing handler or an unstated side effect', () => {
    expect(() => defineTool({ name: 'charge', sideEffect: true } as never)).toThrow(/needs a handler/);
    expect(() => defineTool({ name: 'charge', handler: () => 1 } as never)).toThrow(/sideEffect/);
  });
});
