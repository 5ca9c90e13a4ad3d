// Generates the API reference (docs/api/, Markdown) from the publishable packages: one module per
// packages/<name>, documented from the source entry its package.json names
// (`"natsAgents": { "entry": "libs/<lib>/src/index.ts" }`), i.e. exactly what the package exports.
// A new package is picked up without editing anything here. Options shared by every run are in
// typedoc.json.
//
// Usage: node scripts/api-docs.mjs [typedoc options…]   (npm run docs:api)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entries = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()
  .map((folder) => {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', folder, 'package.json'), 'utf8'));
    const entry = manifest.natsAgents?.entry;
    if (typeof entry !== 'string') throw new Error(`packages/${folder}/package.json needs "natsAgents": { "entry": "libs/<lib>/src/index.ts" }`);
    return entry;
  });

const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const args = [typedoc, '--options', join(root, 'typedoc.json'), ...entries.flatMap((entry) => ['--entryPoints', entry]), ...process.argv.slice(2)];
const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
