/**
 * Checkpoint ids derived from the key's checkpoint history instead of LangGraph's clock. LangGraph
 * names every checkpoint with `uuid6` (wall clock, a process-global counter and random node bits)
 * and stamps it with `new Date()`; its task ids are `uuid5` of the checkpoint id, and its interrupt
 * ids hash the task's namespace. A replay of the same element therefore wrote different bytes into
 * working memory even when every decision was equal (decision 0060).
 *
 * Inside an activation, each new checkpoint of a graph compiled with a
 * {@link WorkingMemoryCheckpointer} is instead named by the successor of the thread's newest
 * checkpoint id (the first twelve hex digits counted up by one; a fresh thread starts at
 * `00000000-0001`), and stamped with the activation's event time. The id is set the moment
 * LangGraph creates the checkpoint, before it derives task ids from it or saves it, so every id
 * LangGraph derives from it is deterministic too, and the ids stay in the order LangGraph's
 * "latest checkpoint" lookup sorts by (a successor of a clock-based id from an earlier version of
 * this adapter sorts after it).
 *
 * Redelivery, retries and replay: the successor depends only on the committed checkpoints the
 * attempt started from, so every attempt and every replay of the same element derives the same
 * ids. Graphs run outside an activation, or with another checkpointer, are not touched.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { activationOrUndefined, type ActivationScope } from './activation-scope.js';

/** A fresh thread's first checkpoint id is the successor of this one. */
const ORIGIN = '00000000-0000-6000-8000-000000000000';
const COUNTER_HEX = 12;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id after `id`: its first twelve hex digits plus one, then a fixed tail (`-6000-8000-000000000000`). */
export function successorCheckpointId(id: string): string {
  const counter = (BigInt(`0x${id.replace(/-/g, '').slice(0, COUNTER_HEX)}`) + 1n).toString(16).padStart(COUNTER_HEX, '0');
  return `${counter.slice(0, 8)}-${counter.slice(8, 12)}-6000-8000-000000000000`;
}

/** The newest checkpoint id among the tables the activation started from (any namespace). */
function newestStoredId(scope: ActivationScope): string {
  let newest = ORIGIN;
  for (const namespaces of Object.values(scope.tables.storage as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const checkpoints of Object.values(namespaces)) {
      for (const id of Object.keys(checkpoints)) if (UUID.test(id) && id > newest) newest = id;
    }
  }
  return newest;
}

/** The next checkpoint id of the running activation. */
function nextCheckpointId(scope: ActivationScope): string {
  const next = successorCheckpointId(scope.lastCheckpointId ?? newestStoredId(scope));
  scope.lastCheckpointId = next;
  return next;
}

interface LoopInternals {
  checkpoint: { id: string; ts: string };
  readonly checkpointer?: unknown;
  _putCheckpoint(metadata: unknown): unknown;
}

/**
 * Wraps LangGraph's `PregelLoop._putCheckpoint` (where every checkpoint of a run is created) so the
 * checkpoint it creates is renamed before anything reads its id. LangGraph does not export the loop,
 * so it is reached as the module its package entry loads (`dist/pregel/loop.js`, the same module
 * instance). Returns false when this LangGraph has no such method: checkpoint ids then stay
 * LangGraph's own, and replays report the checkpoint entry as different (as before 0060).
 */
async function patchPregelLoop(isOurs: (checkpointer: unknown) => boolean): Promise<boolean> {
  const entry = createRequire(import.meta.url).resolve('@langchain/langgraph');
  const loopUrl = new URL('./pregel/loop.js', pathToFileURL(entry));
  let PregelLoop: { prototype: LoopInternals } | undefined;
  try {
    ({ PregelLoop } = (await import(loopUrl.href)) as { PregelLoop?: { prototype: LoopInternals } });
  } catch {
    return false;
  }
  const original = PregelLoop?.prototype._putCheckpoint;
  if (PregelLoop === undefined || typeof original !== 'function') return false;
  PregelLoop.prototype._putCheckpoint = function putDerivedCheckpoint(this: LoopInternals, metadata: unknown): unknown {
    const scope = activationOrUndefined();
    if (scope === undefined || !isOurs(this.checkpointer)) return original.call(this, metadata);
    // `_putCheckpoint` assigns the new checkpoint to `this.checkpoint`, then saves it and derives
    // task ids from it, all synchronously: rename it on assignment.
    let current = this.checkpoint;
    Object.defineProperty(this, 'checkpoint', {
      configurable: true,
      enumerable: true,
      get: () => current,
      set: (created: { id: string; ts: string }) => {
        if (created !== current) {
          // A new checkpoint gets a derived id; the final one of an exiting run keeps its id.
          if (created.id !== current.id) created.id = nextCheckpointId(scope);
          created.ts = new Date(scope.ctx.eventTimeMs).toISOString();
        }
        current = created;
      },
    });
    try {
      return original.call(this, metadata);
    } finally {
      Object.defineProperty(this, 'checkpoint', { configurable: true, enumerable: true, writable: true, value: current });
    }
  };
  return true;
}

let installed: Promise<boolean> | undefined;

/**
 * Installs the derivation once per process (idempotent; later calls return the first result).
 * `isOurs` says which checkpointers derive ids (the adapter's {@link WorkingMemoryCheckpointer}).
 */
export function installDerivedCheckpointIds(isOurs: (checkpointer: unknown) => boolean): Promise<boolean> {
  installed ??= patchPregelLoop(isOurs);
  return installed;
}
