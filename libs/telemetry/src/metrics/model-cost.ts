/** The price of one model in USD per million tokens, input (prompt) and output (completion). */
export interface ModelPrice {
  readonly inputPerMillionUsd: number;
  readonly outputPerMillionUsd: number;
}

/** One call as priced: the model name the agent used, whether the cache answered, its tokens. */
export interface PricedCall {
  readonly model: string;
  readonly cacheHit: boolean;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

/**
 * What the provider calls of an activation cost, in USD, by model: replay-cache answers cost
 * nothing, and a model absent from `prices` is not priced (it is left out, not counted as free).
 * Pure; telemetry only (never a decision input).
 */
export function activationCost(calls: readonly PricedCall[], prices: Readonly<Record<string, ModelPrice>>): { readonly totalUsd: number; readonly byModel: ReadonlyMap<string, number> } {
  const byModel = new Map<string, number>();
  for (const call of calls) {
    if (call.cacheHit) continue;
    const price = prices[call.model];
    if (price === undefined) continue;
    const usd = ((call.promptTokens ?? 0) * price.inputPerMillionUsd + (call.completionTokens ?? 0) * price.outputPerMillionUsd) / 1_000_000;
    byModel.set(call.model, (byModel.get(call.model) ?? 0) + usd);
  }
  let totalUsd = 0;
  for (const usd of byModel.values()) totalUsd += usd;
  return { totalUsd, byModel };
}
