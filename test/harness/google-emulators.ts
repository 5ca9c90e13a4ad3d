/**
 * Google's Bigtable and Firestore emulators for the suites that test those backends: each on a
 * free loopback port, readiness checked by connecting, its output in a temp log, and a handle that
 * crashes it (SIGKILL) and restarts it on the same port. The emulators come from the Debian
 * packages `google-cloud-cli-bigtable-emulator` and `google-cloud-cli-firestore-emulator`
 * (`.ci/run` refuses to run without them). Neither keeps data across a restart: a restarted
 * emulator is empty, like the killed redis-server of the Redis suite.
 *
 * Each emulator runs in its own process group (the Firestore one is a shell script around a JVM),
 * so stopping kills the whole group. Importing this file registers one `exit` hook that SIGKILLs
 * every group still running, so an aborted run leaves no orphans. Test-only code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPorts } from './nats-server.js';

/** Where the Debian packages put the emulators. */
export const BIGTABLE_EMULATOR_BINARY = '/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator';
export const FIRESTORE_EMULATOR_BINARY = '/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator';

/** The Firestore emulator is a JVM: on a busy 2-core machine it takes several seconds to listen. */
const START_TIMEOUT_MS = { bigtable: 15_000, firestore: 90_000 } as const;
const POLL_INTERVAL_MS = 100;

/** Which emulator. */
export type GoogleEmulatorKind = 'bigtable' | 'firestore';

/** A running emulator. */
export interface GoogleEmulatorHandle {
  readonly kind: GoogleEmulatorKind;
  /** `127.0.0.1:<port>`, the value of `BIGTABLE_EMULATOR_HOST` / `FIRESTORE_EMULATOR_HOST`. */
  readonly host: string;
  readonly port: number;
  /** The environment variable the clients read (`BIGTABLE_EMULATOR_HOST` / `FIRESTORE_EMULATOR_HOST`). */
  readonly envName: string;
  /** Crash: SIGKILL the process group and wait until the port is closed. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty). */
  restart(): Promise<void>;
  /** Final stop: kill and delete the log directory. Idempotent. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) killGroup(child);
});

/** Whether both emulator packages are installed (suites skip nothing: `.ci/run` checks this first). */
export function googleEmulatorsInstalled(): boolean {
  return existsSync(BIGTABLE_EMULATOR_BINARY) && existsSync(FIRESTORE_EMULATOR_BINARY);
}

/**
 * Starts an emulator on a free loopback port and waits until it accepts connections.
 *
 * @throws {Error} naming the Debian package when the binary is missing, or with the log tail when
 * the emulator exits early or does not listen in time.
 */
export async function startGoogleEmulator(kind: GoogleEmulatorKind): Promise<GoogleEmulatorHandle> {
  const binary = kind === 'bigtable' ? BIGTABLE_EMULATOR_BINARY : FIRESTORE_EMULATOR_BINARY;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: apt-get install google-cloud-cli-${kind}-emulator`);
  const dir = await mkdtemp(join(tmpdir(), `${kind}-emulator-`));
  const logPath = join(dir, 'emulator.log');
  const [port] = (await freeLoopbackPorts(1)) as [number];
  const args = kind === 'bigtable' ? ['-host', '127.0.0.1', '-port', String(port)] : ['start', `--host=127.0.0.1`, `--port=${port}`];
  let child: ChildProcess | undefined;

  const launch = async (): Promise<void> => {
    const log = openSync(logPath, 'a');
    try {
      child = spawn(binary, args, { stdio: ['ignore', log, log], detached: true });
    } finally {
      closeSync(log);
    }
    running.add(child);
    const started = child;
    const deadline = Date.now() + START_TIMEOUT_MS[kind];
    while (!(await listening(port))) {
      if (started.exitCode !== null || started.signalCode !== null) throw new Error(`${kind} emulator exited early (${started.exitCode ?? started.signalCode}); log:\n${tail(logPath)}`);
      if (Date.now() > deadline) {
        killGroup(started);
        throw new Error(`${kind} emulator did not listen on ${port} within ${START_TIMEOUT_MS[kind]} ms; log:\n${tail(logPath)}`);
      }
      await sleep(POLL_INTERVAL_MS);
    }
  };

  const kill = async (): Promise<void> => {
    const current = child;
    if (current === undefined) return;
    child = undefined;
    killGroup(current);
    running.delete(current);
    if (current.exitCode === null && current.signalCode === null) await new Promise((resolve) => current.once('exit', resolve));
    for (let i = 0; i < 100 && (await listening(port)); i += 1) await sleep(POLL_INTERVAL_MS); // the JVM child dies a moment later
  };

  await launch();
  let stopped = false;
  return {
    kind,
    host: `127.0.0.1:${port}`,
    port,
    envName: kind === 'bigtable' ? 'BIGTABLE_EMULATOR_HOST' : 'FIRESTORE_EMULATOR_HOST',
    kill,
    restart: async () => {
      await kill();
      await launch();
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-4_096);
  } catch {
    return '(no log)';
  }
}
