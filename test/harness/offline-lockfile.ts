/**
 * A package-lock.json for a project outside the repository, cut from the repository's own
 * lockfile, so `npm ci --offline` installs it from npm's local cache alone: npm's cache holds the
 * tarballs `npm ci` fetched for the repository, but not the registry metadata a plain
 * `npm install` would need to resolve version ranges, so the resolution must come from a lockfile.
 *
 * Every third-party package the project needs (its own dependencies and those of the local
 * tarballs it installs) is taken at the version, integrity and layout the repository locked, with
 * its dependency closure resolved as Node would in that layout. Optional peer dependencies are
 * left out, as npm leaves them out. A dependency the repository does not lock fails here, naming it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One `packages` entry of a version-3 lockfile (the fields this module reads or writes). */
interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  optional?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A local tarball the project installs: its name, its path relative to the project and its manifest's dependencies. */
export interface LocalTarball {
  readonly name: string;
  readonly version: string;
  /** Path relative to the project, as package.json names it after `file:`. */
  readonly path: string;
  /** The tarball's absolute path (for its integrity). */
  readonly absolutePath: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly peerDependencies: Readonly<Record<string, string>>;
}

/** The project's manifest fields the lockfile's root entry repeats. */
export interface ProjectManifest {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

/** Where Node would find `name` from the package at `from` (a lockfile path, '' for the root). */
function resolveIn(packages: Readonly<Record<string, LockEntry>>, name: string, from: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (packages[candidate] !== undefined && packages[candidate].link !== true) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/**
 * The lockfile for `project` (its manifest) installing `tarballs`, cut from `repoLockPath`.
 * @throws Error naming a dependency the repository's lockfile does not hold.
 */
export function offlineLockfile(repoLockPath: string, project: ProjectManifest, tarballs: readonly LocalTarball[]): string {
  const repo = JSON.parse(readFileSync(repoLockPath, 'utf8')) as { packages: Record<string, LockEntry> };
  const local = new Map(tarballs.map((t) => [t.name, t]));
  const out: Record<string, LockEntry> = {
    '': { name: project.name, version: project.version, dependencies: { ...project.dependencies }, devDependencies: { ...project.devDependencies } },
  };
  const pending: { name: string; from: string; optional: boolean }[] = [];
  const want = (deps: Readonly<Record<string, string>> | undefined, from: string, optional = false): void => {
    for (const name of Object.keys(deps ?? {})) pending.push({ name, from, optional });
  };

  for (const tarball of tarballs) {
    const path = `node_modules/${tarball.name}`;
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball.absolutePath)).digest('base64')}`;
    out[path] = { version: tarball.version, resolved: `file:${tarball.path}`, integrity, dependencies: { ...tarball.dependencies }, peerDependencies: { ...tarball.peerDependencies } };
  }
  for (const tarball of tarballs) {
    want(tarball.dependencies, `node_modules/${tarball.name}`);
    want(Object.fromEntries(Object.entries(tarball.peerDependencies).filter(([name]) => !local.has(name))), `node_modules/${tarball.name}`);
  }
  want(Object.fromEntries(Object.entries({ ...project.dependencies, ...project.devDependencies }).filter(([name]) => !local.has(name))), '');

  while (pending.length > 0) {
    const { name, from, optional } = pending.pop()!;
    if (local.has(name)) continue;
    const path = resolveIn(repo.packages, name, from.startsWith('node_modules/@nats-agents/') ? '' : from);
    if (path === undefined) {
      if (optional) continue;
      throw new Error(`the repository's package-lock.json holds no '${name}' (needed by ${from === '' ? 'the project' : from}): add it to the repository's dependencies or drop it from the project`);
    }
    if (out[path] !== undefined) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = repo.packages[path]!;
    out[path] = entry;
    want(entry.dependencies, path);
    want(entry.optionalDependencies, path, true);
    const requiredPeers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => entry.peerDependenciesMeta?.[peer]?.optional !== true);
    want(Object.fromEntries(requiredPeers.map((peer) => [peer, '*'])), path);
  }

  const sorted = Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  return `${JSON.stringify({ name: project.name, version: project.version, lockfileVersion: 3, requires: true, packages: sorted }, null, 2)}\n`;
}

/** The manifest of the package a tarball was packed from (packages/<folder>), as a {@link LocalTarball}. */
export function localTarball(repoRoot: string, folder: string, projectDir: string, relativePath: string): LocalTarball {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'packages', folder, 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  return { name: manifest.name, version: manifest.version, path: relativePath, absolutePath: join(projectDir, relativePath), dependencies: manifest.dependencies ?? {}, peerDependencies: manifest.peerDependencies ?? {} };
}
