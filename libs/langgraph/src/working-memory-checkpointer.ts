/**
 * A LangGraph checkpoint saver over the key's working memory: the graph's checkpoints are staged in
 * the activation's working memory (entry `__langgraph__/checkpoints`) and commit atomically with
 * it — in the same state-document write as the activation's outputs and intents (invariant 1). An
 * attempt that fails or is retried leaves no checkpoint behind; a committed one is what the next
 * activation of the key resumes from. One thread per key; latest-only (the newest checkpoint of
 * each namespace and its parent are kept, so the entry stays within the memory cap). The stored
 * entry is deterministic: the same element writes the same bytes (decision 0060).
 */
import { MemorySaver, type Checkpoint, type CheckpointMetadata } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { PendingWrite } from '@langchain/langgraph-checkpoint';
import { currentActivation } from './activation-scope.js';
import { canonicalTables } from './canonical-message-ids.js';

/** The working-memory entry holding the checkpoints (`__langgraph__/` is the adapter's namespace). */
export const CHECKPOINTS_MEMORY_KEY = '__langgraph__/checkpoints';

type Tables = { storage: Record<string, unknown>; writes: Record<string, unknown> };

/** Bytes survive JSON as `{"$b64": "..."}`. */
function encodeTables(tables: Tables): string {
  return JSON.stringify(tables, (_key, value: unknown) => (value instanceof Uint8Array ? { $b64: Buffer.from(value).toString('base64') } : value));
}

function decodeTables(text: string): Tables {
  return JSON.parse(text, (_key, value: unknown) => {
    if (typeof value === 'object' && value !== null && '$b64' in value && typeof (value as { $b64: unknown }).$b64 === 'string') {
      return Uint8Array.from(Buffer.from((value as { $b64: string }).$b64, 'base64'));
    }
    // MemorySaver keeps its tables as prototype-less objects (a guard against prototype pollution).
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return Object.assign(Object.create(null) as object, value);
    return value;
  }) as Tables;
}

/** The checkpoint tables a key's working memory holds (empty tables for a fresh key). */
export function loadTables(memoryText: string | undefined): Tables {
  return memoryText === undefined ? { storage: Object.create(null) as Record<string, unknown>, writes: Object.create(null) as Record<string, unknown> } : decodeTables(memoryText);
}

/** Keeps the newest two checkpoints per (thread, namespace) and only their pending writes. */
function latestOnly(tables: Tables): Tables {
  const kept = new Set<string>();
  const storage = tables.storage as Record<string, Record<string, Record<string, unknown>>>;
  for (const namespaces of Object.values(storage)) {
    for (const [ns, checkpoints] of Object.entries(namespaces)) {
      const ids = Object.keys(checkpoints).sort();
      for (const id of ids.slice(0, -2)) delete checkpoints[id];
      for (const id of ids.slice(-2)) kept.add(id);
      namespaces[ns] = checkpoints;
    }
  }
  for (const key of Object.keys(tables.writes)) if (![...kept].some((id) => key.includes(id))) delete tables.writes[key];
  return tables;
}

/**
 * Compile the graph with one instance (`builder.compile({ checkpointer: new WorkingMemoryCheckpointer() })`);
 * it reads and writes the tables of whichever activation runs the graph.
 *
 * Redelivery and crashes: the checkpoints are part of the committed document, so a retried or
 * redelivered element starts from the same checkpoint as the first attempt; nothing a failed attempt
 * wrote survives it. Replay: checkpoint ids are derived from the key's checkpoint history and
 * stamped with the event time (`derived-checkpoint-ids.ts`), and LangGraph's random message ids are
 * renamed in the stored copy (`canonical-message-ids.ts`), so every attempt and every replay of the
 * same element writes byte-identical working memory (decision 0060).
 */
export class WorkingMemoryCheckpointer extends MemorySaver {
  constructor() {
    super();
    // MemorySaver's tables are own fields: point them at the current activation's.
    for (const table of ['storage', 'writes'] as const) {
      Object.defineProperty(this, table, {
        configurable: true,
        get: () => currentActivation().tables[table],
        set: () => undefined,
      });
    }
  }

  private persist(): void {
    const { ctx, tables } = currentActivation();
    ctx.memory.set(CHECKPOINTS_MEMORY_KEY, encodeTables(canonicalTables(latestOnly(tables))));
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    const saved = await super.put(config, checkpoint, metadata);
    this.persist();
    return saved;
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    await super.putWrites(config, writes, taskId, taskPath);
    this.persist();
  }

  override async deleteThread(threadId: string): Promise<void> {
    await super.deleteThread(threadId);
    this.persist();
  }
}
