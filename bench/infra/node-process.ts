/**
 * A Node.js child process of the built code in `dist/` (a runtime service or a baseline role),
 * started with an explicit, minimal environment and considered up once it prints its ready line.
 * Output is kept as a bounded tail for diagnostics: services log one debug line per activation,
 * and the benchmark must not hold hundreds of thousands of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

const TAIL_LINES = 200;
const STOP_TIMEOUT_MS = 15_000;

/**
 * Set in every child unless the spec overrides it: tracing off. With no collector a service's
 * exporter would retry against nothing, and span work is not what the benchmark measures.
 */
const BASE_ENV = { NO_COLOR: '1', OTEL_SDK_DISABLED: 'true' } as const;

/** How to start one child. */
export interface NodeProcessSpec {
  /** A short name for messages, e.g. `activator`. */
  readonly name: string;
  /** The script to run (absolute path). */
  readonly script: string;
  readonly args?: readonly string[];
  /** Extra `node` flags, e.g. `--cpu-prof`. */
  readonly nodeFlags?: readonly string[];
  /** The child's whole environment (PATH, `NO_COLOR=1` and `OTEL_SDK_DISABLED=true` are added; these entries win). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** The line that says the child is serving. */
  readonly ready: RegExp;
  readonly readyTimeoutMs?: number;
}

/** A running child. */
export interface NodeProcess {
  readonly name: string;
  readonly pid: number;
  /** Settles with the exit code or signal once the child has exited (for whatever reason). */
  readonly exited: Promise<number | string>;
  /** The last lines it printed (stdout and stderr). */
  tail(): readonly string[];
  /** Calls `listener` with every line printed from now on; returns the function that stops it. */
  onLine(listener: (line: string) => void): () => void;
  /** SIGTERM and wait for exit (SIGKILL after 15 s); resolves with the exit code or signal. */
  stop(): Promise<number | string>;
}

/**
 * Starts `spec.script` with the current `node` and resolves once a line matches `spec.ready`.
 *
 * @throws {Error} when the child exits or stays silent past the timeout; the message quotes its output.
 */
export async function startNodeProcess(spec: NodeProcessSpec): Promise<NodeProcess> {
  const child: ChildProcess = spawn(process.execPath, [...(spec.nodeFlags ?? []), spec.script, ...(spec.args ?? [])], {
    cwd: spec.cwd,
    env: { PATH: process.env.PATH ?? '', ...BASE_ENV, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const lines: string[] = [];
  let partial = '';
  let onReady: (() => void) | undefined;
  const listeners = new Set<(line: string) => void>();
  const onChunk = (chunk: Buffer): void => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      if (line.length === 0) continue;
      lines.push(line);
      if (lines.length > TAIL_LINES) lines.shift();
      if (onReady !== undefined && spec.ready.test(line)) onReady();
      for (const listener of listeners) listener(line);
    }
  };
  child.stdout?.on('data', onChunk);
  child.stderr?.on('data', onChunk);
  const exited = once(child, 'exit').then(([code, signal]) => {
    process.removeListener('exit', killOnExit);
    return (code ?? signal) as number | string;
  });
  const describe = (): string => `output of ${spec.name}:\n${lines.slice(-40).join('\n')}`;

  const timeoutMs = spec.readyTimeoutMs ?? 30_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${spec.name} printed no line matching ${spec.ready} within ${timeoutMs} ms; ${describe()}`)), timeoutMs);
    onReady = () => {
      onReady = undefined;
      clearTimeout(timer);
      resolve();
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${spec.name} exited (${code}) before it was ready; ${describe()}`));
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name} has no pid`);

  return {
    name: spec.name,
    pid,
    exited,
    tail: () => [...lines],
    onLine: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const inTime = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
        if (!inTime) child.kill('SIGKILL');
      }
      return exited;
    },
  };
}
