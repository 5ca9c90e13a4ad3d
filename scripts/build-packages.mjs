// Builds the publishable workspace packages (packages/*) from their sources in libs/*/src: one
// ES module bundle (dist/index.js) and one bundled declaration file (dist/index.d.ts) each.
//
// A package says where its source is in its package.json: `"natsAgents": { "entry": "libs/x/src/index.ts" }`.
// What the bundle contains and what it imports:
// - the repository's own libs (`#core`, `#routing`, …) are inlined, so a user installs no private package;
// - a `#lib` whose entry is another package's entry stays an import of that package (`#sdk` in the
//   test kit imports `@nats-agents/sdk`), so a user's project holds one copy of each package;
// - every other bare import must be a `dependencies` or `peerDependencies` entry of the package and
//   stays external; an undeclared one fails the build, naming the package and the import.
//
// Usage: node scripts/build-packages.mjs [name…]   (names are the folders under packages/; none = all)
import { readdir, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { dts } from 'rolldown-plugin-dts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rootManifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/** Every workspace package: folder, manifest and the absolute path of its source entry. */
async function workspacePackages() {
  const folders = (await readdir(join(root, 'packages'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  const packages = [];
  for (const folder of folders.sort()) {
    const dir = join(root, 'packages', folder);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
    const entry = manifest.natsAgents?.entry;
    if (typeof entry !== 'string') throw new Error(`packages/${folder}/package.json needs "natsAgents": { "entry": "libs/<lib>/src/index.ts" }`);
    packages.push({ folder, dir, manifest, entry: resolve(root, entry) });
  }
  return packages;
}

/** `#lib` specifiers whose source entry is another package's entry, mapped to that package's name. */
function packageAliases(packages, self) {
  const aliases = new Map();
  for (const [specifier, target] of Object.entries(rootManifest.imports ?? {})) {
    const source = typeof target === 'object' ? target.source : undefined;
    if (typeof source !== 'string') continue;
    const owner = packages.find((p) => p.entry === resolve(root, source));
    if (owner !== undefined && owner !== self) aliases.set(specifier, owner.manifest.name);
  }
  return aliases;
}

/**
 * The repository's lib modules that exist for their side effect on import: configuring the shared
 * protobufjs runtime (int64 as numbers, unknown fields kept). A bundle that decodes protobuf must
 * keep them, though none of their bindings is used.
 */
const SIDE_EFFECT_SOURCES = new Set([`${root.replaceAll('\\', '/')}/libs/proto/src/protobuf-runtime.ts`]);

/** True for a TypeScript source of the repository's libs (pure on import), not its generated JavaScript. */
function isOwnLibSource(id) {
  const path = id.replaceAll('\\', '/');
  return path.startsWith(`${root.replaceAll('\\', '/')}/libs/`) && path.endsWith('.ts') && !SIDE_EFFECT_SOURCES.has(path);
}

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** Bare package name of a specifier (`@scope/name/sub` → `@scope/name`). */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Keeps sibling packages and declared dependencies external; fails on anything undeclared. */
function boundaries(aliases) {
  return {
    name: 'nats-agents-package-boundaries',
    resolveId(specifier, importer) {
      if (aliases.has(specifier)) return { id: aliases.get(specifier), external: true };
      if (builtins.has(specifier)) return { id: specifier, external: true };
      if (specifier.startsWith('#') || specifier.startsWith('.') || specifier.startsWith('/') || importer === undefined) return null;
      if (/^[a-zA-Z]:[\\/]/.test(specifier)) return null;
      // Everything bare stays external; what survives tree-shaking is checked against the manifest below.
      return { id: specifier, external: true };
    },
  };
}

/** Fails when the bundle (code or declarations) still imports a package the manifest does not declare. */
function checkDeclared(pkg, output) {
  const declared = new Set([...Object.keys(pkg.manifest.dependencies ?? {}), ...Object.keys(pkg.manifest.peerDependencies ?? {})]);
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    for (const specifier of importedSpecifiers(chunk.code)) {
      if (builtins.has(specifier) || specifier.startsWith('.')) continue;
      const name = packageName(specifier);
      if (!declared.has(name)) throw new Error(`${pkg.manifest.name}: ${chunk.fileName} imports '${specifier}', but '${name}' is not in its dependencies or peerDependencies`);
    }
  }
}

/** The module specifiers a bundled file imports (static, side-effect-only and dynamic). */
function importedSpecifiers(code) {
  const found = new Set();
  for (const match of code.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    found.add(match[1] ?? match[2] ?? match[3]);
  }
  return found;
}

// The root tsconfig's options without its file list: the declaration program holds the entry's graph only.
const { compilerOptions: rootOptions } = JSON.parse(await readFile(join(root, 'tsconfig.json'), 'utf8'));
const declarationOptions = { ...rootOptions, incremental: false, tsBuildInfoFile: undefined, declaration: true, noEmit: false, sourceMap: false };

async function build(pkg, packages) {
  const outDir = join(pkg.dir, 'dist');
  await rm(outDir, { recursive: true, force: true });
  const bundle = await rolldown({
    input: { index: pkg.entry },
    cwd: root,
    platform: 'node',
    resolve: { conditionNames: ['source', 'node', 'import', 'default'] },
    plugins: [boundaries(packageAliases(packages, pkg)), dts({ tsconfig: false, compilerOptions: declarationOptions })],
    // An external package is never imported for its side effects alone: a bundle keeps no import whose bindings it dropped.
    // The repository's own libs have no side effects on import (house style), so a module none of
    // whose bindings is used is dropped whole: the SDK's bundle then holds no protobuf codec.
    treeshake: { moduleSideEffects: (id, external) => !external && !isOwnLibSource(id) },
    checks: { pluginTimings: false },
    logLevel: 'warn',
  });
  const { output } = await bundle.write({ dir: outDir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' });
  await bundle.close();
  checkDeclared(pkg, output);
  return output;
}

const wanted = process.argv.slice(2);
const packages = await workspacePackages();
for (const pkg of packages) {
  if (wanted.length > 0 && !wanted.includes(pkg.folder) && !wanted.includes(pkg.manifest.name)) continue;
  const output = await build(pkg, packages);
  console.log(`${pkg.manifest.name}: ${output.map((o) => o.fileName).join(', ')}`);
}
