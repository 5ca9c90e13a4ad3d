import type { ActivationTally } from '../activation/activation-tally.js';
import { TerminalError } from '../errors/runtime-error.js';
import type { JsonValue } from '../json/canonical-json.js';
import type { ModelRequest } from './model-request.js';

/**
 * Token budgets of an agent, set in its definition and overridable per agent in the activator's
 * configuration (`budgets.<agent>`). Tokens are prompt plus completion tokens as the provider
 * reported them (decoded from the response bytes).
 */
export interface TokenBudget {
  /**
   * Tokens one attempt of an activation may use: its model calls, replay-cache answers included
   * (so a retry that is answered from the cache decides exactly as the first attempt did).
   */
  readonly tokensPerActivation?: number;
  /**
   * Tokens one key may use in a rolling window of event time: the key's committed activations in
   * the window (recorded in its state document) plus this attempt's calls so far.
   */
  readonly tokensPerKey?: { readonly tokens: number; readonly windowMs: number };
  /**
   * Tokens all keys of the agent may use together in one fixed window of event time (windows are
   * aligned to multiples of `windowMs`): what the agent's provider calls were charged in the window
   * (a shared counter, see `AgentTokenLedger`) plus this attempt's calls so far.
   */
  readonly tokensPerAgent?: { readonly tokens: number; readonly windowMs: number };
}

/** Which budget refused a call. */
export type BudgetScope = 'activation' | 'key' | 'agent';

/**
 * A model call was refused before the provider was asked, because it would exceed a budget. The
 * activation fails closed with a `budget_exceeded` record even if the agent catches this. Terminal:
 * the same state and element refuse the same call again, so a retry or a replay decides the same.
 */
export class BudgetExceeded extends TerminalError {
  override readonly name = 'BudgetExceeded';
  constructor(
    readonly scope: BudgetScope,
    readonly used: number,
    readonly reserve: number,
    readonly limit: number,
  ) {
    super(`token budget per ${scope} exceeded: ${used} used + ${reserve} requested > ${limit}`);
  }
}

/** What {@link checkTokenBudget} reads: nothing but this attempt's answers (cache hits included) and the request. */
export interface BudgetInputs {
  readonly budget: TokenBudget;
  readonly request: ModelRequest;
  /** Tokens this attempt's answered calls used so far (hits included). */
  readonly activationTokens: number;
  /** Tokens the key's committed activations used inside the key window (from the committed document). */
  readonly keyWindowTokens?: number;
  /**
   * Tokens charged to the agent's current window (`tokensPerAgent`), read from the shared counter;
   * this attempt's paid calls are already in it, its cache answers are not.
   */
  readonly agentWindowTokens?: number;
}

/**
 * Refuses a call that would exceed a budget, before the provider is paid. A call "would exceed"
 * when the tokens already used plus the completion tokens the request reserves (`max_tokens` or
 * `max_completion_tokens` in its params; 0 when it names none) are more than the limit, or when the
 * budget is already spent. Pure: the inputs are the attempt's answers, which a retry or a replay
 * gets back byte for byte from the replay cache, never a clock, so it decides the same way. The
 * per-agent input is the one read from a shared counter; it is consulted only before a call that
 * would pay the provider, and an answered call is served from the replay cache without it.
 *
 * @throws {@link BudgetExceeded}
 */
export function checkTokenBudget(inputs: BudgetInputs): void {
  const { budget, request } = inputs;
  const reserve = reservedTokens(request.params);
  const perActivation = budget.tokensPerActivation;
  if (perActivation !== undefined && refuses(inputs.activationTokens, reserve, perActivation)) throw new BudgetExceeded('activation', inputs.activationTokens, reserve, perActivation);
  const perKey = budget.tokensPerKey;
  if (perKey !== undefined) {
    const used = (inputs.keyWindowTokens ?? 0) + inputs.activationTokens;
    if (refuses(used, reserve, perKey.tokens)) throw new BudgetExceeded('key', used, reserve, perKey.tokens);
  }
  const perAgent = budget.tokensPerAgent;
  if (perAgent !== undefined && inputs.agentWindowTokens !== undefined && refuses(inputs.agentWindowTokens, reserve, perAgent.tokens)) {
    throw new BudgetExceeded('agent', inputs.agentWindowTokens, reserve, perAgent.tokens);
  }
}

/** Tokens of `spend` inside the window ending at `nowMs` (entries after `nowMs - windowMs`). */
export function spentInWindow(spend: readonly { readonly atMs: number; readonly tokens: number }[] | undefined, nowMs: number, windowMs: number): number {
  let tokens = 0;
  for (const entry of spend ?? []) if (entry.atMs > nowMs - windowMs && entry.atMs <= nowMs) tokens += entry.tokens;
  return tokens;
}

/**
 * The key's spend record after a commit at `nowMs` that used `tokens`: entries older than the
 * window are dropped, so the record stays as small as the window needs. Pure.
 */
export function recordSpend(spend: readonly { readonly atMs: number; readonly tokens: number }[] | undefined, nowMs: number, tokens: number, windowMs: number): { atMs: number; tokens: number }[] {
  const kept = (spend ?? []).filter((entry) => entry.atMs > nowMs - windowMs).map((entry) => ({ atMs: entry.atMs, tokens: entry.tokens }));
  if (tokens > 0) kept.push({ atMs: nowMs, tokens });
  return kept;
}

/** Tokens the calls of a tally used (prompt + completion, as reported). */
export function tallyTokens(tally: Pick<ActivationTally, 'modelCalls'>): number {
  let tokens = 0;
  for (const call of tally.modelCalls) tokens += (call.promptTokens ?? 0) + (call.completionTokens ?? 0);
  return tokens;
}

function refuses(used: number, reserve: number, limit: number): boolean {
  return used >= limit || used + reserve > limit;
}

function reservedTokens(params: { readonly [name: string]: JsonValue } | undefined): number {
  const value = params?.['max_tokens'] ?? params?.['max_completion_tokens'];
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
