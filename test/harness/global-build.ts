/**
 * Global setup of the integration project: compiles the services once (incrementally) so every
 * suite spawns the code under test, not a stale build.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './service-process.js';

export default function setup(): void {
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
