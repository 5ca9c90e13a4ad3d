// The plain-JavaScript echo agent under the test kit: no SDK import, yet the kit runs it like any
// agent — the echo, the running count in working memory, and a byte-identical replay.
import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '#sdk';
import { testAgent } from '#testing';
import echoModule from './echo.agent.mjs';

// A plain object's `kind: 'complete'` is inferred as a string: the runtime checks its shape, TypeScript cannot.
const echo = echoModule as unknown as AgentDefinition;

describe('echo agent', () => {
  it('echoes each event with the running count of its key', async () => {
    const kit = testAgent(echo);
    expect((await kit.send('k', 'one')).outputs).toEqual([{ echo: 'one', count: 1, seq: 0 }]);
    const second = await kit.send('k', 'two');
    expect(second.outputs).toEqual([{ echo: 'two', count: 2, seq: 1 }]);
    expect((await kit.send('other', 'x')).outputs).toEqual([{ echo: 'x', count: 1, seq: 0 }]);
    expect(second.modelCalls).toBe(0);
    expect(await kit.checkReplay(second)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
  });
});
