/**
 * The facts a benchmark figure is meaningless without: what machine, which runtimes, which
 * commit. Read once per run; nothing here changes any state (git is only asked for HEAD).
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { natsServerVersion } from './nats-server.js';

/** The machine and software a run measured. */
export interface MachineFacts {
  readonly cpuModel: string;
  readonly cores: number;
  readonly totalMemoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly natsServer: string;
  /** 1, 5 and 15-minute load averages when the run started (a busy machine skews everything). */
  readonly loadAverageAtStart: readonly number[];
  /** The repository's HEAD, when it is a git checkout (uncommitted changes are not detected). */
  readonly gitCommit: string | undefined;
}

/** Collects {@link MachineFacts} for a repository at `repoRoot`. */
export function machineFacts(repoRoot: string): MachineFacts {
  const cpuList = cpus();
  return {
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    totalMemoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: `${type()} ${release()}`,
    node: process.version,
    natsServer: natsServerVersion(),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
    gitCommit: gitHead(repoRoot),
  };
}

function gitHead(repoRoot: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}
