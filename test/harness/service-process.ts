/**
 * One runtime service (ingress, activator, effector, memory-store) as a real child process of
 * the built code in dist/ (the integration project's global setup builds it), so tests can
 * SIGTERM and SIGKILL it like an orchestrator would. Output is captured line by line; a test
 * waits for log lines instead of sleeping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '#config';

/** The repository root. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** The runtime's services (and the operations console). */
export type ServiceName = 'ingress' | 'activator' | 'effector' | 'memory-store' | 'console';

/** The log line each service prints once it is serving. */
const READY: Record<ServiceName, RegExp> = {
  ingress: /HTTP listening on (\S+)/,
  activator: /owns \d+ partitions/,
  effector: /effector (connected|consuming)/,
  'memory-store': /memory-store (connected|serving)/,
  console: /console listening on (\S+)/,
};

/** A running service process. */
export interface ServiceHandle {
  readonly name: ServiceName;
  readonly process: ChildProcess;
  /** Every output line so far (stdout and stderr). */
  readonly lines: readonly string[];
  /** Resolves with the first line matching `pattern` (already printed or future). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** SIGTERM and wait for exit (graceful shutdown hooks run). */
  stop(): Promise<number | string>;
  /** SIGKILL and wait for exit (a crash: nothing runs). */
  kill(): Promise<number | string>;
}

/**
 * Tracing stays off unless a suite points the services at a collector: otherwise every service
 * would keep exporting to the OpenTelemetry default (localhost:4318) and counting drops.
 */
function tracingDefaults(env: Record<string, string>): Record<string, string> {
  const configured = ['OTEL_SDK_DISABLED', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'].some((name) => env[name] !== undefined);
  return configured ? {} : { OTEL_SDK_DISABLED: 'true' };
}

/** Services still running: killed when the test process exits, so a failed suite leaves no orphan. */
const liveServices = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveServices) child.kill('SIGKILL');
});

/**
 * Starts a service with `env` (merged over a minimal environment) and waits until it is ready.
 * Fails with the captured output when it exits or times out first.
 */
export async function startService(name: ServiceName, env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceHandle> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(REPO_ROOT, 'dist', 'apps', name, 'src', 'main.js')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...tracingDefaults(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveServices.add(child);
  child.once('exit', () => liveServices.delete(child));
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  // A pipe chunk can end mid-line (under load it often does): keep each stream's unfinished tail
  // until its newline arrives, so no line is ever seen in two pieces.
  const lineReader = (): { chunk: (data: Buffer) => void; end: () => void } => {
    let pending = '';
    return {
      chunk: (data) => {
        const text = pending + data.toString();
        const cut = text.lastIndexOf('\n');
        pending = text.slice(cut + 1);
        if (cut >= 0) onText(text.slice(0, cut));
      },
      end: () => {
        if (pending.length > 0) onText(pending);
        pending = '';
      },
    };
  };
  const onText = (text: string): void => {
    for (const line of text.split('\n')) {
      if (line.length === 0) continue;
      lines.push(line);
      if (process.env.HARNESS_ECHO === '1') process.stderr.write(`[${name}] ${line}\n`);
      for (const waiter of [...waiters]) {
        const match = waiter.pattern.exec(line);
        if (match !== null) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    const reader = lineReader();
    stream?.on('data', reader.chunk);
    stream?.on('end', reader.end);
  }
  // 'close', not 'exit': it fires once stdout and stderr are drained too, so a stopped service's
  // last lines (its shutdown report) are in `lines` when `stop()` resolves.
  const exited = once(child, 'close').then(([code, signal]) => (code ?? signal) as number | string);

  const waitForLine = (pattern: RegExp, wait = 30_000): Promise<RegExpMatchArray> => {
    for (const line of lines) {
      const match = pattern.exec(line);
      if (match !== null) return Promise.resolve(match);
    }
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no line matching ${pattern} within ${wait} ms; output:\n${lines.slice(-40).join('\n')}`)), wait);
      waiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(timer);
          resolvePromise(m);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}) before printing ${pattern}; output:\n${lines.slice(-40).join('\n')}`));
      });
    });
  };

  const signal = async (sig: NodeJS.Signals): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    return exited;
  };

  const handle: ServiceHandle = {
    name,
    process: child,
    lines,
    waitForLine,
    exited,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
  };
  await waitForLine(READY[name], timeoutMs);
  return handle;
}
