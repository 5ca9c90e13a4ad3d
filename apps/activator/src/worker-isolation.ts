/**
 * Wires worker isolation (docs/decisions/0070) into the activator: every agent whose (configured)
 * `isolation` is `worker` gets a pool of worker threads and a handler that runs there. Everything
 * else about the agent (timeout, budgets, tools, memory policy, summarizing) is its definition's
 * as before and applied on this thread, so the core runs a worker-isolated agent's attempts like
 * any other: same staging, same replay cache, same commit, same error records.
 */
import type { AgentDefinition, AgentHandler } from '#core';
import { AgentWorkerPool, type AgentWorkerPoolOptions } from './agent-worker-pool.js';

/**
 * The worker pools of one activator process, one per worker-isolated agent. An activator crash
 * ends them with the process (the elements are redelivered to the next owner and re-run from
 * committed state); a graceful shutdown closes them after the in-flight activations drained.
 */
export class AgentWorkers {
  private readonly pools = new Map<string, AgentWorkerPool>();

  constructor(
    private readonly options: Omit<AgentWorkerPoolOptions, 'agent'> & {
      /** Told when the worker started ahead of an agent's first attempt could not start (the attempt tries again). */
      readonly onWarmFailed?: (agent: string, error: Error) => void;
    },
  ) {}

  /**
   * The agents as the activator runs them: a worker-isolated agent's handler replaced by one that
   * runs the module's handler in this agent's pool. Other agents are returned as they are.
   */
  isolate(agents: ReadonlyMap<string, AgentDefinition>): Map<string, AgentDefinition> {
    const out = new Map<string, AgentDefinition>();
    for (const [name, agent] of agents) {
      if (agent.isolation !== 'worker') {
        out.set(name, agent);
        continue;
      }
      const pool = new AgentWorkerPool({ ...this.options, agent: name });
      this.pools.set(name, pool);
      void pool.warm().catch((error: unknown) => this.options.onWarmFailed?.(name, error instanceof Error ? error : new Error(String(error))));
      const handler: AgentHandler = (ctx) => pool.run(ctx) as ReturnType<AgentHandler>;
      out.set(name, { ...agent, handler });
    }
    return out;
  }

  /** Live workers by worker-isolated agent (the `agents_agent_workers` gauge). */
  live(): Map<string, number> {
    return new Map([...this.pools].map(([agent, pool]) => [agent, pool.size]));
  }

  /** Terminates every worker (after the activator drained its in-flight activations). */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
