// The hello agent under the test kit, with the scripted model the demo deployment runs
// (examples/models/demo-model.ts): a greeting per event, a visit counter in working memory, and a
// step that replays byte for byte without paying the model again.
import { describe, expect, it } from 'vitest';
import { FakeLlm } from '#providers';
import { testAgent } from '#testing';
import { rules } from '../models/demo-model.js';
import hello from './hello.agent.js';

const demoModel = () => new FakeLlm({ rules, delay: () => Promise.resolve() });

describe('hello agent', () => {
  it('greets by name and counts the visits of each key', async () => {
    const kit = testAgent(hello, { model: demoModel() });
    expect((await kit.send('ada', { name: 'Ada' })).outputs).toEqual([{ greeting: 'Hello, Ada! Nice to see you.', visits: 1, seq: 0 }]);
    const second = await kit.send('ada', {});
    expect(second.outputs).toEqual([{ greeting: 'Hello, ada! Nice to see you.', visits: 2, seq: 1 }]);
    expect(second.modelCalls).toBe(1);
    expect((await kit.send('bob', '')).outputs).toEqual([expect.objectContaining({ visits: 1 })]);
    expect(kit.memory('ada').ringText('names')).toEqual(['Ada', 'ada']);
    expect(await kit.checkReplay(second)).toEqual({ deterministic: true, repeatModelCalls: 0, differences: [] });
  });
});
