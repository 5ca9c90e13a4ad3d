/**
 * The activation a LangGraph run belongs to, carried through the graph's async calls by an
 * `AsyncLocalStorage`, so a graph compiled once (at module load) reaches the current activation's
 * working memory and model port. Set only by {@link langGraphAgent} around one run.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivationContext } from '#sdk';

/** What a run inside an activation can reach. */
export interface ActivationScope {
  readonly ctx: ActivationContext;
  /** The checkpointer's tables for this activation (restored from working memory). */
  readonly tables: { storage: Record<string, unknown>; writes: Record<string, unknown> };
  /** The last checkpoint id this run derived (decision 0060); undefined before the first. */
  lastCheckpointId?: string;
}

const scopes = new AsyncLocalStorage<ActivationScope>();

/** Runs `work` inside `scope`. */
export function withActivation<T>(scope: ActivationScope, work: () => Promise<T>): Promise<T> {
  return scopes.run(scope, work);
}

/** Thrown when the adapter's checkpointer or model is used outside a `langGraphAgent` run. */
export class OutsideActivation extends Error {
  override readonly name = 'OutsideActivation';
}

/** The current activation's scope. */
export function currentActivation(): ActivationScope {
  const scope = scopes.getStore();
  if (scope === undefined) throw new OutsideActivation('this LangGraph checkpointer or model runs only inside a langGraphAgent activation');
  return scope;
}

/** The current activation's scope, or undefined outside a `langGraphAgent` run. */
export function activationOrUndefined(): ActivationScope | undefined {
  return scopes.getStore();
}
