// Cost is priced from the calls that reached a provider, never from cache answers.
import { describe, expect, it } from 'vitest';
import { activationCost } from './model-cost.js';

describe('activationCost', () => {
  it('prices provider calls per million tokens by model, leaving cache hits and unpriced models out', () => {
    const prices = { fast: { inputPerMillionUsd: 1, outputPerMillionUsd: 5 } };
    const cost = activationCost(
      [
        { model: 'fast', cacheHit: false, promptTokens: 1_000, completionTokens: 200 },
        { model: 'fast', cacheHit: true, promptTokens: 1_000, completionTokens: 200 },
        { model: 'unpriced', cacheHit: false, promptTokens: 5, completionTokens: 5 },
      ],
      prices,
    );
    expect(cost.totalUsd).toBeCloseTo(0.002, 10);
    expect([...cost.byModel.keys()]).toEqual(['fast']);
  });
});
