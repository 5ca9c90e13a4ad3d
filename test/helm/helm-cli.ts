/**
 * The pinned helm binary (fetched once into .cache/helm by scripts/fetch-helm.mjs) run against the
 * chart with a private HOME, so no user configuration, repository cache or plugin can change a
 * result and nothing is written outside a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one helm invocation printed and how it exited. */
export interface HelmResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** helm, confined to a temporary HOME, driving one chart directory. */
export class HelmCli {
  private readonly home: string;

  constructor(
    private readonly binary: string,
    private readonly chartDir: string,
  ) {
    this.home = mkdtempSync(join(tmpdir(), 'helm-home-'));
    for (const dir of ['config', 'cache', 'data']) mkdirSync(join(this.home, dir));
  }

  /** `helm lint --strict` with the values files given (none: the chart's defaults). */
  lint(...valuesFiles: string[]): HelmResult {
    return this.run(['lint', '--strict', this.chartDir, ...valuesFiles.flatMap((file) => ['-f', file])]);
  }

  /** `helm template` as release `rel` in namespace `agents`. */
  template(...valuesFiles: string[]): HelmResult {
    return this.run(['template', 'rel', this.chartDir, '--namespace', 'agents', ...valuesFiles.flatMap((file) => ['-f', file])]);
  }

  /** Removes the temporary HOME. */
  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }

  private run(args: string[]): HelmResult {
    const result = spawnSync(this.binary, args, {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: this.home,
        HELM_CONFIG_HOME: join(this.home, 'config'),
        HELM_CACHE_HOME: join(this.home, 'cache'),
        HELM_DATA_HOME: join(this.home, 'data'),
      },
    });
    if (result.error !== undefined) throw result.error;
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  }
}
