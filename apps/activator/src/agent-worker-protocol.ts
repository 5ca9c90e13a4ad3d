/**
 * The messages between the activator's thread and a worker thread that runs one worker-isolated
 * agent (docs/decisions/0070). One worker runs one attempt at a time; each attempt has its own
 * `MessageChannel` and its own shared flag, so nothing of a terminated attempt can reach the next.
 *
 * A context call: the worker stores 0 in the flag, posts `call` on the attempt port and blocks in
 * `Atomics.wait` until the activator has posted the `ContextReply` and stored 1 (the worker then
 * takes the reply with `receiveMessageOnPort`). The activator stores `ABANDONED` before it
 * terminates a worker, so a blocked worker is never left waiting on an answer.
 */
import type { ActivationSnapshot, ContextCall, ErrorWire } from '#core';
import type { MessagePort } from 'node:worker_threads';

/** What a worker is started with (`workerData`). */
export interface AgentWorkerData {
  /** The agent this worker runs. */
  readonly agent: string;
  /** `agentModules` of the configuration: the worker loads them exactly as the activator does. */
  readonly modules: readonly string[];
  /** The directory relative module paths resolve against (the activator's working directory). */
  readonly cwd: string;
}

/** Worker → activator, on the worker's own port, once after start-up. */
export type WorkerStartup = { readonly kind: 'ready' } | { readonly kind: 'failed'; readonly error: ErrorWire };

/** Activator → worker, on the worker's own port: run one attempt. */
export interface RunAttempt {
  readonly kind: 'run';
  readonly snapshot: ActivationSnapshot;
  /** The attempt's port (transferred). */
  readonly port: MessagePort;
  /** The attempt's flag: one Int32 in a SharedArrayBuffer. */
  readonly flag: SharedArrayBuffer;
}

/** Worker → activator, on the attempt's port. */
export type AttemptMessage =
  | { readonly kind: 'call'; readonly call: ContextCall }
  | { readonly kind: 'returned'; readonly outcome: unknown }
  | { readonly kind: 'threw'; readonly error: ErrorWire };

/** Flag values. */
export const FlagValue = {
  /** The worker waits for an answer. */
  Waiting: 0,
  /** The answer is on the port. */
  Answered: 1,
  /** The attempt was abandoned (timeout): no answer will come; the worker is being terminated. */
  Abandoned: 2,
} as const;
