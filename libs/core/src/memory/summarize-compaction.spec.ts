// Summarizing compaction calls the model inside the activation; its fold, its must-shrink rule and
// its cache behaviour are what make it replay-safe, so they are pinned here with a scripted model.
import { describe, expect, it } from 'vitest';
import type { ModelRequest, ModelResponse } from '../model/model-request.js';
import { SummaryDidNotShrink, summarizeIfDue, type SummarizeOptions } from './summarize-compaction.js';
import { WorkingMemory } from './working-memory.js';

const respond = (text: string): ModelResponse => ({ body: new TextEncoder().encode(text), text, toolCalls: [], digest: '' });

function memoryWithHistory(items: number, itemBytes = 100): WorkingMemory {
  const memory = WorkingMemory.fromBlob(undefined, { nowMs: 1 });
  for (let i = 0; i < items; i += 1) memory.append('history', `${i}:${'x'.repeat(itemBytes)}`, { maxItems: 1000 });
  return memory;
}

const options = (overrides: Partial<SummarizeOptions> = {}): SummarizeOptions => ({
  sourceKeys: ['history'],
  keepRecent: 2,
  triggerBytes: 1_000,
  buildRequest: ({ previousSummary, items }) => ({ model: 'summarizer', messages: [{ role: 'user', content: `${previousSummary ?? ''}|${items.length}` }] }),
  ...overrides,
});

describe('summarizeIfDue', () => {
  it('does nothing below the trigger', async () => {
    const memory = memoryWithHistory(3, 10);
    const calls: ModelRequest[] = [];
    expect(await summarizeIfDue(memory, async (r) => (calls.push(r), respond('s')), options())).toBe(false);
    expect(calls).toEqual([]);
  });

  it('folds all but the newest items into the summary through one model call', async () => {
    const memory = memoryWithHistory(20);
    const calls: ModelRequest[] = [];
    expect(await summarizeIfDue(memory, async (r) => (calls.push(r), respond('S1')), options())).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.messages).toEqual([{ role: 'user', content: '|18' }]);
    expect(memory.ringText('history').map((i) => i.split(':')[0])).toEqual(['18', '19']);
    expect(memory.getText('summary')).toBe('S1');
  });

  it('is cumulative: the previous summary is an input of the next fold', async () => {
    const memory = memoryWithHistory(20);
    memory.set('summary', 'earlier');
    const calls: ModelRequest[] = [];
    await summarizeIfDue(memory, async (r) => (calls.push(r), respond('S2')), options());
    expect(calls[0]?.messages).toEqual([{ role: 'user', content: 'earlier|18' }]);
  });

  it('removes the rings entirely with keepRecent 0', async () => {
    const memory = memoryWithHistory(20);
    await summarizeIfDue(memory, async () => respond('all of it'), options({ keepRecent: 0 }));
    expect(memory.has('history')).toBe(false);
  });

  it('makes no call when there is nothing older than keepRecent to fold', async () => {
    const memory = memoryWithHistory(3, 500);
    const calls: ModelRequest[] = [];
    expect(await summarizeIfDue(memory, async (r) => (calls.push(r), respond('s')), options({ keepRecent: 5 }))).toBe(false);
    expect(calls).toEqual([]);
  });

  it('fails closed when the summary does not shrink memory', async () => {
    const memory = memoryWithHistory(20, 10);
    await expect(summarizeIfDue(memory, async () => respond('y'.repeat(10_000)), options({ triggerBytes: 100 }))).rejects.toBeInstanceOf(SummaryDidNotShrink);
  });

  it('folds byte-identically when replayed against the same memory and answer', async () => {
    const run = async (): Promise<string> => {
      const memory = memoryWithHistory(20);
      await summarizeIfDue(memory, async () => respond('S'), options());
      return JSON.stringify(memory.toBlob().entries.map((e) => [e.key, Buffer.from(e.value).toString('hex')]));
    };
    expect(await run()).toBe(await run());
  });
});
