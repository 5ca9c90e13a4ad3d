/**
 * Global setup of the integration project: compiles the services once (incrementally) so every
 * suite spawns the code under test, not a stale build.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Computed here rather than imported from the harness: the harness imports '#' specifiers that
// resolve to the build this setup produces, so on a clean clone it cannot be loaded before it.
const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

export default function setup(): void {
  execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
}
