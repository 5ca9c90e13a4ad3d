/**
 * The worker threads of one worker-isolated agent in this activator process (docs/decisions/0070).
 *
 * 1. An attempt takes an idle worker, or starts one while fewer than `size` live, or waits in
 *    line (first come, first served). The wait counts against the attempt's timeout.
 * 2. It sends the worker a snapshot of the context and serves every context call on this thread
 *    with the attempt's real staging context (`serveContextCall`), so staging, the replay cache,
 *    budgets and ids are exactly those of an agent on the event loop.
 * 3. The handler's outcome (or error) comes back; the worker returns to the pool.
 * 4. When the attempt's signal aborts (its timeout) the worker is terminated wherever it is, a busy
 *    loop included, and a later attempt starts a fresh one. The attempt has already been recorded as
 *    timed out by the runner; nothing the worker did was staged anywhere but the dropped context.
 * 5. A worker that dies during an attempt (an uncaught error, an exit) fails that attempt with an
 *    error naming it (`activation_error`) and is replaced on demand.
 *
 * Redelivery and replay: an attempt that never committed re-runs from committed state on whichever
 * worker is free, and meets the replay cache on this thread. Activator crash: the workers die with
 * the process.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { activationSnapshot, errorFromWire, serveContextCall, type ActivationContext, type ContextReply } from '#core';
import { FlagValue, type AgentWorkerData, type AttemptMessage, type RunAttempt, type WorkerStartup } from './agent-worker-protocol.js';

/** The worker entry, next to this file (in dist/ as in the source tree). */
const WORKER_ENTRY = new URL('./agent-worker.js', import.meta.url);

/** What a pool is built from. */
export interface AgentWorkerPoolOptions {
  readonly agent: string;
  readonly modules: readonly string[];
  readonly cwd: string;
  /** Live workers at most (`activator.workersPerAgent`). */
  readonly size: number;
  /** Told after a worker ended mid-attempt: terminated at the attempt's timeout, or crashed (logs, metrics). */
  readonly onTerminated?: (agent: string, cause: WorkerEndCause) => void;
}

/** Why a worker ended mid-attempt. */
export type WorkerEndCause = 'timeout' | 'crash';

/** A worker-backed handler failed outside the agent's code (the worker died or could not start). */
export class AgentWorkerError extends Error {
  override readonly name = 'AgentWorkerError';
}

/**
 * The worker threads of one agent in this process (the protocol is at the top of this file). Holds
 * no activation state: a worker terminated at a timeout or dead of a crash takes nothing with it
 * that an attempt would commit, and a redelivered element runs on whichever worker is free.
 */
export class AgentWorkerPool {
  private readonly idle: Worker[] = [];
  private readonly waiting: { grant: (worker: Worker) => void; refuse: (error: unknown) => void }[] = [];
  /** Workers started and not yet terminated or exited. */
  private readonly workers = new Set<Worker>();
  private closed = false;

  constructor(private readonly options: AgentWorkerPoolOptions) {}

  /** Workers started and not yet terminated (idle or busy). */
  get size(): number {
    return this.workers.size;
  }

  /**
   * Runs the agent's handler once in a worker with `ctx` (the attempt's staging context) answering
   * its calls. Resolves with what the handler returned (the runner checks it is an outcome),
   * rejects with what it threw (rebuilt by `errorFromWire`), with `ctx.signal`'s reason once the
   * attempt is abandoned, or with `AgentWorkerError` when the worker dies.
   */
  async run(ctx: ActivationContext): Promise<unknown> {
    const signal = ctx.signal;
    const worker = await this.acquire(signal);
    if (signal.aborted) {
      this.release(worker);
      throw signal.reason;
    }
    const flag = new SharedArrayBuffer(4);
    const flagView = new Int32Array(flag);
    const { port1, port2 } = new MessageChannel();
    const run: RunAttempt = { kind: 'run', snapshot: activationSnapshot(ctx), port: port2, flag };
    try {
      worker.postMessage(run, [port2]);
    } catch (error) {
      // The event does not survive structured cloning: the agent never ran.
      port1.close();
      this.release(worker);
      throw error;
    }
    return new Promise<unknown>((resolve, reject) => {
      let done = false;
      const finish = (): void => {
        done = true;
        signal.removeEventListener('abort', abandon);
        worker.off('error', died);
        worker.off('exit', exited);
        port1.close();
      };
      const answer = (reply: ContextReply): void => {
        if (done) return;
        try {
          port1.postMessage(reply);
        } catch (error) {
          port1.postMessage({ ok: false, error: { name: 'DataCloneError', message: error instanceof Error ? error.message : String(error), kind: 'terminal' } } satisfies ContextReply);
        }
        Atomics.store(flagView, 0, FlagValue.Answered);
        Atomics.notify(flagView, 0);
      };
      port1.on('message', (message: AttemptMessage) => {
        if (done) return;
        switch (message.kind) {
          case 'call': {
            const reply = serveContextCall(ctx, message.call);
            if (reply instanceof Promise) void reply.then(answer);
            else answer(reply);
            return;
          }
          case 'returned':
            finish();
            this.release(worker);
            resolve(message.outcome);
            return;
          case 'threw':
            finish();
            this.release(worker);
            reject(errorFromWire(message.error));
            return;
          default: {
            const unknown: never = message;
            throw new TypeError(`unknown worker message ${JSON.stringify(unknown)}`);
          }
        }
      });
      const abandon = (): void => {
        if (done) return;
        finish();
        Atomics.store(flagView, 0, FlagValue.Abandoned);
        Atomics.notify(flagView, 0);
        this.discard(worker, 'timeout');
        reject(signal.reason);
      };
      const died = (error: Error): void => {
        if (done) return;
        finish();
        this.discard(worker, 'crash');
        reject(new AgentWorkerError(`the worker of agent '${this.options.agent}' crashed: ${error.message}`, { cause: error }));
      };
      const exited = (code: number): void => {
        if (done) return;
        finish();
        this.discard(worker, 'crash');
        reject(new AgentWorkerError(`the worker of agent '${this.options.agent}' exited with code ${code}`));
      };
      signal.addEventListener('abort', abandon, { once: true });
      worker.once('error', died);
      worker.once('exit', exited);
    });
  }

  /**
   * Starts one worker ahead of the first attempt, so that attempt does not spend its timeout on a
   * thread start and a module import. Rejects with `AgentWorkerError` when the worker cannot start
   * (the first attempt then tries again).
   */
  async warm(): Promise<void> {
    if (this.closed || this.workers.size > 0) return;
    this.release(await this.spawn());
  }

  /** Terminates every worker; attempts waiting for one are refused. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.refuse(new AgentWorkerError(`the workers of agent '${this.options.agent}' are shut down`));
    const idle = this.idle.splice(0);
    for (const worker of idle) this.workers.delete(worker);
    await Promise.all(idle.map((worker) => worker.terminate()));
  }

  private acquire(signal: AbortSignal): Promise<Worker> {
    if (this.closed) return Promise.reject(new AgentWorkerError(`the workers of agent '${this.options.agent}' are shut down`));
    const worker = this.idle.pop();
    if (worker !== undefined) return Promise.resolve(worker);
    if (this.workers.size < this.options.size) return this.spawn();
    return new Promise<Worker>((resolve, reject) => {
      const waiter = {
        grant: (granted: Worker): void => {
          signal.removeEventListener('abort', leave);
          resolve(granted);
        },
        refuse: (error: unknown): void => {
          signal.removeEventListener('abort', leave);
          reject(error);
        },
      };
      const leave = (): void => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Starts a worker and resolves once it has loaded the agent's module. */
  private spawn(): Promise<Worker> {
    const data: AgentWorkerData = { agent: this.options.agent, modules: this.options.modules, cwd: this.options.cwd };
    // execArgv is inherited (the service's V8 flags are accepted that way; passing them explicitly is refused).
    const worker = new Worker(WORKER_ENTRY, { workerData: data, name: `agent:${this.options.agent}` });
    this.workers.add(worker);
    // A worker that dies while idle (a stray asynchronous error of its module) leaves the pool.
    worker.once('exit', () => {
      this.workers.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    return new Promise<Worker>((resolve, reject) => {
      const failed = (error: Error): void => {
        worker.off('message', started);
        this.workers.delete(worker);
        void worker.terminate();
        reject(new AgentWorkerError(`the worker of agent '${this.options.agent}' failed to start: ${error.message}`, { cause: error }));
      };
      const started = (message: WorkerStartup): void => {
        worker.off('error', failed);
        worker.off('exit', exitedEarly);
        if (message.kind === 'ready') return resolve(worker);
        failed(errorFromWire(message.error));
      };
      const exitedEarly = (code: number): void => failed(new Error(`exit code ${code}`));
      worker.once('message', started);
      worker.once('error', failed);
      worker.once('exit', exitedEarly);
    });
  }

  /** A worker that finished its attempt: to the first waiting attempt, else idle. */
  private release(worker: Worker): void {
    if (this.closed || !this.workers.has(worker)) {
      this.discard(worker, undefined);
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) next.grant(worker);
    else this.idle.push(worker);
  }

  /** A worker that must not run again: terminated; a waiting attempt gets a fresh one. */
  private discard(worker: Worker, cause: WorkerEndCause | undefined): void {
    this.workers.delete(worker);
    void worker.terminate().then(() => {
      if (cause !== undefined) this.options.onTerminated?.(this.options.agent, cause);
    });
    const next = this.waiting.shift();
    if (next !== undefined && !this.closed) this.spawn().then(next.grant, next.refuse);
  }
}
