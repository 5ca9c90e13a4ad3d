/**
 * The entry point of a worker thread that runs one worker-isolated agent (docs/decisions/0070).
 * It loads the configured agent modules the way the activator does (`loadAgentModules`), keeps
 * the one agent it was started for, and runs attempts one at a time with a `RemoteContext` whose
 * every call is answered by the activator's thread. It holds no state between attempts but what
 * the agent module itself keeps at module level (lost whenever the worker is replaced).
 *
 * Crash: an uncaught error ends the thread; the activator fails the running attempt with an
 * `activation_error` record and starts another worker. Timeout: the activator terminates the
 * thread wherever it is (a busy loop included); nothing it did was staged outside the activator.
 */
import { isMainThread, parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { RemoteContext, errorToWire, type AgentDefinition, type ContextChannel, type ContextReply } from '#core';
import { loadAgentModules } from '#config';
import { FlagValue, type AgentWorkerData, type AttemptMessage, type RunAttempt, type WorkerStartup } from './agent-worker-protocol.js';

/** A channel that blocks this thread until the activator answers each call. */
function blockingChannel(port: MessagePort, flag: Int32Array): ContextChannel {
  return (call) => {
    Atomics.store(flag, 0, FlagValue.Waiting);
    port.postMessage({ kind: 'call', call } satisfies AttemptMessage);
    Atomics.wait(flag, 0, FlagValue.Waiting);
    const received = receiveMessageOnPort(port);
    if (received === undefined) throw new Error('the activator abandoned this attempt');
    return received.message as ContextReply;
  };
}

/** Runs one attempt and reports how the handler ended. */
async function runAttempt(agent: AgentDefinition, run: RunAttempt): Promise<void> {
  const ctx = new RemoteContext(run.snapshot, blockingChannel(run.port, new Int32Array(run.flag)), new AbortController().signal);
  let message: AttemptMessage;
  try {
    message = { kind: 'returned', outcome: await agent.handler(ctx) };
  } catch (thrown) {
    message = { kind: 'threw', error: errorToWire(thrown) };
  }
  try {
    run.port.postMessage(message);
  } catch (thrown) {
    // The outcome does not survive structured cloning (a function in it, say).
    run.port.postMessage({ kind: 'threw', error: errorToWire(thrown) } satisfies AttemptMessage);
  }
  run.port.close();
}

async function start(port: MessagePort, data: AgentWorkerData): Promise<void> {
  let agent: AgentDefinition | undefined;
  try {
    agent = (await loadAgentModules(data.modules, data.cwd)).get(data.agent);
    if (agent === undefined) throw new Error(`no agent '${data.agent}' in ${data.modules.join(', ')}`);
  } catch (thrown) {
    port.postMessage({ kind: 'failed', error: errorToWire(thrown) } satisfies WorkerStartup);
    return;
  }
  const loaded = agent;
  // Attempts arrive one at a time (the pool hands a worker one attempt until it reports back).
  port.on('message', (run: RunAttempt) => void runAttempt(loaded, run));
  port.postMessage({ kind: 'ready' } satisfies WorkerStartup);
}

if (!isMainThread && parentPort !== null) void start(parentPort, workerData as AgentWorkerData);
