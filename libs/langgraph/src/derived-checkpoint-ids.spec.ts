// Derived checkpoint ids must sort in creation order (LangGraph's latest-checkpoint lookup takes the
// greatest id) and after a clock-based id an earlier adapter version stored (decision 0060).
import { describe, expect, it } from 'vitest';
import { successorCheckpointId } from './derived-checkpoint-ids.js';

describe('successorCheckpointId', () => {
  it('counts the first twelve hex digits up, so ids sort in the order they were made', () => {
    const first = successorCheckpointId('00000000-0000-6000-8000-000000000000');
    const second = successorCheckpointId(first);
    expect(first).toBe('00000000-0001-6000-8000-000000000000');
    expect(second).toBe('00000000-0002-6000-8000-000000000000');
    expect(successorCheckpointId('00000000-ffff-6000-8000-000000000000')).toBe('00000001-0000-6000-8000-000000000000');
    expect([second, first].sort()).toEqual([first, second]);
  });

  it('follows a clock-based uuid6 of an earlier adapter version', () => {
    const legacy = '1f1edfd9-f888-6870-8000-5ab2ead3d6b1';
    const next = successorCheckpointId(legacy);
    expect(next).toBe('1f1edfd9-f889-6000-8000-000000000000');
    expect(next > legacy).toBe(true);
  });
});
