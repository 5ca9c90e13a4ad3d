// The per-agent token budget's shared counter, as a port. Every key of an agent charges the same
// window, and an agent's keys live on partitions owned by different activators, so the counter
// cannot live in any one key's state: the activator backs this port with a JetStream KV entry per
// agent (revision-checked increments). Pure: no clock is read here; a window is named by the
// element's event time, which the server stamps (docs/decisions/0050-per-agent-token-budget.md).
import { RetryableError } from '../errors/runtime-error.js';

/** One fixed window of event time: `[startMs, startMs + windowMs)`, aligned to multiples of `windowMs`. */
export interface AgentWindow {
  readonly startMs: number;
  readonly windowMs: number;
}

/**
 * Tokens each agent was charged per window, shared by every activator of a deployment.
 *
 * Redelivery and replay: the runtime consults the ledger only before a call that would pay the
 * provider. A call answered from the replay cache or the attempt memo (a retry, a resume, a
 * redelivery after a failed commit) is neither consulted nor charged again, so the decision that
 * was recorded in the cache stands. Crash: a call paid and charged whose commit never happened is
 * paid again by the attempt that replaces it, and charged again — the ledger counts what the
 * provider was paid, which is what the budget bounds.
 */
export interface AgentTokenLedger {
  /**
   * Tokens charged to `agent` in `window` so far.
   *
   * @throws {@link AgentLedgerUnavailable} (retryable) when the counter cannot be read: the call is
   * refused before the provider is paid, and the key is held and retried.
   */
  spent(agent: string, window: AgentWindow): Promise<number>;
  /**
   * Adds `tokens` to `agent`'s `window`. Never rejects: the provider was already paid and the answer
   * is kept, so a charge that cannot be written is the adapter's to report (log, metric); the
   * window then under-counts by that call.
   */
  charge(agent: string, window: AgentWindow, tokens: number): Promise<void>;
}

/** The per-agent counter could not be read; the model call was not made. Retryable. */
export class AgentLedgerUnavailable extends RetryableError {
  override readonly name = 'AgentLedgerUnavailable';
}

/** The fixed window of `windowMs` that holds `eventTimeMs` (aligned to multiples of `windowMs` since the epoch). */
export function agentWindowOf(eventTimeMs: number, windowMs: number): AgentWindow {
  return { startMs: Math.floor(eventTimeMs / windowMs) * windowMs, windowMs };
}

/**
 * An {@link AgentTokenLedger} in one process's memory: for specs, the in-process test kit, and an
 * activator that runs alone. Lost on restart; two processes each keep their own count.
 */
export class InMemoryAgentTokenLedger implements AgentTokenLedger {
  private readonly counts = new Map<string, number>();

  spent(agent: string, window: AgentWindow): Promise<number> {
    return Promise.resolve(this.counts.get(slot(agent, window)) ?? 0);
  }

  charge(agent: string, window: AgentWindow, tokens: number): Promise<void> {
    if (tokens > 0) this.counts.set(slot(agent, window), (this.counts.get(slot(agent, window)) ?? 0) + tokens);
    return Promise.resolve();
  }
}

function slot(agent: string, window: AgentWindow): string {
  return `${agent}|${window.windowMs}|${window.startMs}`;
}
