// @ts-check
/**
 * Lint rules that enforce the house style: a pure core (time, randomness and environment are
 * injected), libs reached only through their curated `#name` index, promises always handled,
 * exhaustive switches over closed unions, and no focused or skipped tests. Everything here is an
 * error: a warning nobody fixes is noise.
 *
 * TypeScript is linted with type information (the root tsconfig covers apps, libs, test, bench,
 * examples and scripts). Plain `.js`/`.mjs` files get the JavaScript recommended rules only.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];
const JS_FILES = ['**/*.js', '**/*.mjs', '**/*.cjs'];
const TEST_FILES = ['**/*.spec.ts', 'test/**/*.ts'];
const CORE_FILES = ['libs/core/src/**/*.ts'];
const CORE_SPEC_FILES = ['libs/core/src/**/*.spec.ts'];
const CORE_TESTING_FILES = ['libs/core/src/testing/**/*.ts'];

// ---------------------------------------------------------------------------------------------
// Import boundaries: each lib is reached through its curated index only. ESLint matches the import specifier as written, so a relative
// path is judged by its shape: climbing out and then down into some `<dir>/src` leaves the
// importing lib or app, as does climbing up to `libs/` or `apps/` at the repository root.
// ---------------------------------------------------------------------------------------------

const DEEP_IMPORT_MESSAGE =
  "Import another lib through its '#name' specifier (its curated index.ts), never a relative path into its src.";

/** `#core/actor/x.js`: the package.json imports map only the `#name` roots. */
const NO_SUBPATH = {
  regex: '^#[^/]+/',
  message: "Import the lib's public index as '#name'; '#name/...' subpaths bypass its curated index.ts.",
};
/** `../../routing/src/x.js` from a lib, `../../effector/src/x.js` from an app. */
const NO_SIBLING_SRC = {
  regex: '^(?:\\.\\./)+[^./][^/]*/src(?:/|$)',
  message: `Deep import into another lib's or app's src. ${DEEP_IMPORT_MESSAGE}`,
};
/** `../../../libs/routing/src/x.js` or `../../apps/x/src/y.js` from inside a lib or app. */
const NO_CLIMB_TO_ROOT = {
  regex: '^(?:\\.\\./)+(?:libs|apps)(?:/|$)',
  message: `Deep import across libs or apps. ${DEEP_IMPORT_MESSAGE} Apps share code through a lib, not through each other's src.`,
};
/** `../../libs/core/src/x.js` from test/, scripts/, examples/ or bench/ (app internals stay reachable for tests). */
const NO_LIB_INTERNALS = {
  regex: '^(?:\\.\\./)+libs(?:/|$)',
  message: `Deep import into a lib's internals. ${DEEP_IMPORT_MESSAGE}`,
};

const LIB_AND_APP_PATTERNS = [NO_SUBPATH, NO_SIBLING_SRC, NO_CLIMB_TO_ROOT];
const OUTSIDE_PATTERNS = [NO_SUBPATH, NO_LIB_INTERNALS];

// ---------------------------------------------------------------------------------------------
// The pure core: libs/core holds no framework, no broker client, no ambient
// time, randomness, environment or timers; they are injected as ports (Clock, Timers, ...).
// ---------------------------------------------------------------------------------------------

const CORE_IMPORT_PATTERNS = [
  ...LIB_AND_APP_PATTERNS,
  {
    regex: '^@nestjs(?:/|$)',
    message: 'libs/core is pure (Nest at the edges): wire core classes in a *.module.ts outside libs/core.',
  },
  {
    regex: '^@nats-io(?:/|$)',
    message: 'libs/core is pure: reach NATS through a core port (StateStore, OutboxPublisher, ...) implemented in #transport.',
  },
  {
    regex: '^#(?!proto$)[^/]+$',
    message: 'libs/core sits below every other lib and may import #proto only: define a port in core and implement it in the higher lib.',
  },
];

const CORE_IMPORT_PATHS = [
  ...['process', 'node:process'].map((name) => ({
    name,
    message: 'libs/core is pure: take configuration and I/O as arguments; only apps read the process.',
  })),
  ...['timers', 'node:timers', 'timers/promises', 'node:timers/promises'].map((name) => ({
    name,
    message: 'libs/core is pure: schedule through the injected Timers port so specs can drive time.',
  })),
  ...['crypto', 'node:crypto'].map((name) => ({
    name,
    importNames: ['randomUUID', 'randomBytes', 'randomInt', 'randomFill', 'randomFillSync', 'getRandomValues', 'webcrypto'],
    message: 'libs/core is deterministic: derive ids (uuidv5 over their inputs) or use a PRNG seeded by (entityKey, seq).',
  })),
  {
    name: 'uuid',
    importNames: ['v1', 'v4', 'v6', 'v7', 'v1ToV6'],
    message: 'libs/core derives ids, never generates them: use v5 over the id inputs.',
  },
];

const CORE_PROPERTIES = [
  { object: 'Date', property: 'now', message: 'libs/core is pure: read time from the injected Clock.' },
  { object: 'performance', property: 'now', message: 'libs/core is pure: read time from the injected Clock.' },
  {
    object: 'Math',
    property: 'random',
    message: 'libs/core is deterministic: use a PRNG seeded by (entityKey, seq), injected as a port.',
  },
  {
    object: 'crypto',
    property: 'randomUUID',
    message: 'libs/core derives ids, never generates them: use uuidv5 over the id inputs.',
  },
  {
    object: 'crypto',
    property: 'getRandomValues',
    message: 'libs/core is deterministic: use a PRNG seeded by (entityKey, seq), injected as a port.',
  },
  {
    object: 'process',
    property: 'env',
    message: 'libs/core is pure: configuration arrives as arguments (#config is read by apps), never from process.env.',
  },
];

const TIMERS_MESSAGE = 'libs/core is pure: schedule through the injected Timers port so specs can drive time.';
const CORE_GLOBALS_EXCEPT_IMMEDIATE = [
  { name: 'process', message: 'libs/core is pure: take configuration and I/O as arguments; only apps touch the process.' },
  ...['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'].map((name) => ({ name, message: TIMERS_MESSAGE })),
];
const CORE_GLOBALS = [
  ...CORE_GLOBALS_EXCEPT_IMMEDIATE,
  ...['setImmediate', 'clearImmediate'].map((name) => ({ name, message: TIMERS_MESSAGE })),
];

// ---------------------------------------------------------------------------------------------
// Tests: nothing focused, skipped or left as a placeholder reaches main, and no tautologies.
// ---------------------------------------------------------------------------------------------

const TEST_PROPERTIES = ['it', 'describe', 'test'].flatMap((object) => [
  { object, property: 'only', message: 'A focused test silently skips the rest of the suite; remove .only before committing.' },
  { object, property: 'skip', message: 'A skipped test proves nothing; fix it or delete it.' },
  { object, property: 'todo', message: 'A placeholder test proves nothing; write it or track it in an issue.' },
]);

const CORE_SYNTAX = [
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'libs/core is pure: read time from the injected Clock, not new Date().',
  },
];

const TEST_SYNTAX = [
  {
    selector: "CallExpression[callee.name='expect'][arguments.0.type='Literal']",
    message: 'Asserting on a literal (e.g. expect(true).toBe(true)) proves nothing; assert on the value under test.',
  },
];

export default defineConfig([
  // examples/standalone is a project of its own (its own package.json, tsconfig and test run).
  globalIgnores(['**/dist/', '**/node_modules/', 'coverage/', '.data/', 'libs/proto/src/generated/**', 'examples/standalone/']),

  {
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
  },

  // Plain JavaScript: the recommended rules, Node globals, no type information.
  {
    files: JS_FILES,
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
  },

  // TypeScript, type-aware.
  {
    files: TS_FILES,
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        // Nest reads constructor parameter types at run time: a class named only in a decorated
        // constructor is a value use, so consistent-type-imports must not make it type-only.
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A `default` does not stand in for a missing member: adding a union member must fail here.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'all',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: true },
      ],
      eqeqeq: ['error', 'always'],
    },
  },

  // Libs and apps log through Nest's Logger; only the CLI (and scripts/) talks to a terminal.
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    ignores: ['apps/cli/**'],
    rules: { 'no-console': 'error' },
  },

  // Import boundaries. Later blocks replace these options wholesale, so each repeats what it keeps.
  {
    files: ['libs/**/*.ts', 'apps/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: LIB_AND_APP_PATTERNS }] },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts', 'vitest.config.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: OUTSIDE_PATTERNS }] },
  },

  // The pure core.
  {
    files: CORE_FILES,
    rules: {
      'no-restricted-imports': ['error', { paths: CORE_IMPORT_PATHS, patterns: CORE_IMPORT_PATTERNS }],
      'no-restricted-properties': ['error', ...CORE_PROPERTIES],
      'no-restricted-globals': ['error', ...CORE_GLOBALS],
      'no-restricted-syntax': ['error', ...CORE_SYNTAX],
    },
  },
  // ManualTimers drains pending callbacks with setImmediate; it is the fake that replaces real time.
  {
    files: CORE_TESTING_FILES,
    rules: { 'no-restricted-globals': ['error', ...CORE_GLOBALS_EXCEPT_IMMEDIATE] },
  },

  // Tests (colocated specs and test/).
  {
    files: TEST_FILES,
    rules: {
      'no-restricted-properties': ['error', ...TEST_PROPERTIES],
      'no-restricted-syntax': ['error', ...TEST_SYNTAX],
    },
  },
  // Core specs are core code and tests at once: both restriction lists apply.
  {
    files: CORE_SPEC_FILES,
    rules: {
      'no-restricted-properties': ['error', ...CORE_PROPERTIES, ...TEST_PROPERTIES],
      'no-restricted-syntax': ['error', ...CORE_SYNTAX, ...TEST_SYNTAX],
    },
  },
]);
