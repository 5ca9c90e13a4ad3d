import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { AgentLedgerUnavailable, type AgentTokenLedger, type AgentWindow } from '#core';

/** How many windows an agent's entry keeps (the newest by start): a key lagging further behind counts from zero. */
export const RETAINED_WINDOWS = 4;

/** Revision-checked increments tried before a charge gives up (each conflict is another activator's charge landing first). */
const MAX_CHARGE_TRIES = 32;

/** One agent's entry: its recent windows, newest first. */
interface LedgerEntry {
  readonly windows: readonly { readonly startMs: number; readonly windowMs: number; readonly tokens: number }[];
}

/** What a charge that could not be written reports (the activator logs it and counts it). */
export type LedgerChargeLost = (agent: string, window: AgentWindow, tokens: number, error: Error) => void;

/**
 * The {@link AgentTokenLedger} over JetStream KV (`<PREFIX>_BUDGETS`, history 1): one entry per
 * agent, named by the agent, holding its {@link RETAINED_WINDOWS} newest windows. Every activator of
 * the deployment reads and charges the same entry, whatever partitions it owns.
 *
 * A charge is a read, an add and `kv.update(agent, next, revision)` — a compare-and-set the server
 * enforces (10071 on a stale revision), retried from a fresh read — so concurrent charges from
 * different activators all land and none overwrites another. Reads are plain `get`s: two calls
 * racing on one window may both pass the check and both be paid (the overshoot is bounded by the
 * calls in flight at once; see docs/decisions/0050-per-agent-token-budget.md).
 *
 * Crash: a charge is written after the provider answered and before the attempt commits; an
 * activator dying in between leaves the charge, and the attempt that replaces it pays and charges
 * again, which is what the provider billed.
 */
export class KvAgentTokenLedger implements AgentTokenLedger {
  constructor(
    private readonly kv: KV,
    private readonly onChargeLost: LedgerChargeLost = () => {},
  ) {}

  async spent(agent: string, window: AgentWindow): Promise<number> {
    let entry;
    try {
      entry = await this.kv.get(agent);
    } catch (error) {
      throw new AgentLedgerUnavailable(`reading the token counter of '${agent}' failed: ${(error as Error).message}`, { cause: error });
    }
    if (entry === null || entry.operation !== 'PUT') return 0;
    return decodeEntry(entry.value).windows.find((w) => w.startMs === window.startMs && w.windowMs === window.windowMs)?.tokens ?? 0;
  }

  async charge(agent: string, window: AgentWindow, tokens: number): Promise<void> {
    if (tokens <= 0) return;
    // Built only when every try failed: an Error captures a stack, and this runs once per charged model call.
    let lastError: Error | undefined;
    for (let tries = 0; tries < MAX_CHARGE_TRIES; tries += 1) {
      try {
        const entry = await this.kv.get(agent);
        const current = entry === null || entry.operation !== 'PUT' ? { windows: [] } : decodeEntry(entry.value);
        const bytes = encodeEntry(charged(current, window, tokens));
        if (entry === null) await this.kv.create(agent, bytes);
        else await this.kv.update(agent, bytes, entry.revision);
        return;
      } catch (error) {
        lastError = error as Error;
        // A conflict is another activator's charge landing first: read again. Anything else is an outage.
        if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence)) break;
      }
    }
    this.onChargeLost(agent, window, tokens, lastError ?? new Error('no attempt made'));
  }
}

/** `entry` with `tokens` added to `window`, keeping the newest {@link RETAINED_WINDOWS} windows. Pure. */
export function charged(entry: LedgerEntry, window: AgentWindow, tokens: number): LedgerEntry {
  const others = entry.windows.filter((w) => !(w.startMs === window.startMs && w.windowMs === window.windowMs));
  const before = entry.windows.find((w) => w.startMs === window.startMs && w.windowMs === window.windowMs)?.tokens ?? 0;
  const windows = [...others, { startMs: window.startMs, windowMs: window.windowMs, tokens: before + tokens }].sort((a, b) => b.startMs - a.startMs).slice(0, RETAINED_WINDOWS);
  return { windows };
}

function encodeEntry(entry: LedgerEntry): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(entry));
}

/** An entry that does not parse counts as empty (a counter is never worth stopping an agent for). */
function decodeEntry(bytes: Uint8Array): LedgerEntry {
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as Partial<LedgerEntry>;
    if (!Array.isArray(parsed.windows)) return { windows: [] };
    return {
      windows: parsed.windows.filter(
        (w): w is LedgerEntry['windows'][number] => typeof w === 'object' && w !== null && Number.isSafeInteger(w.startMs) && Number.isSafeInteger(w.windowMs) && Number.isSafeInteger(w.tokens),
      ),
    };
  } catch {
    return { windows: [] };
  }
}
