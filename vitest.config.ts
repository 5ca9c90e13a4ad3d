import { defineConfig } from 'vitest/config';

// `source` resolves the package.json "#lib" imports to TypeScript sources, so tests never
// need a build; the built services resolve the same specifiers to dist/ at run time.
const conditions = ['source', 'node', 'import', 'default'];
// Vitest also hands the SSR conditions to its worker processes as `--conditions` flags, where they
// apply to Node's own `require` too: an `import` condition there makes CommonJS packages with dual
// exports (pg → pg-pool) require their ESM build. Vite adds import/require/default per import kind.
const ssrConditions = ['source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['source'] } },
  test: {
    globals: false,
    pool: 'forks',
    // eventsource-parser (under the AI SDK) exports a "source" condition pointing at .ts files,
    // which Node cannot load with the workers' --conditions=source: let Vite transform that chain.
    server: { deps: { inline: ['ai', /@ai-sdk\//, 'eventsource-parser'] } },
    reporters: process.env.VITEST_JSON ? ['default', ['json', { outputFile: process.env.VITEST_JSON }]] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'examples/**/*.spec.ts', 'scripts/**/*.spec.ts', 'bench/**/*.spec.ts'],
          // examples/standalone is a project of its own: its spec runs against the packed packages
          // (test/packages/standalone-project.test.ts), not the repository's sources.
          exclude: ['**/node_modules/**', 'examples/standalone/**'],
          sequence: { groupOrder: 0 },
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/harness/global-build.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
