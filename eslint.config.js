// ESLint flat config. The layering rules of docs/architecture.md are enforced here twice:
// by path zones (import/no-restricted-paths) and by module names (no-restricted-imports),
// so neither a relative path nor a bare specifier can cross a layer by accident.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importPlugin from 'eslint-plugin-import';
import { builtinModules } from 'node:module';
import globals from 'globals';

const LAYERS = 'See docs/architecture.md ("Layers").';

/** The doors of src-main: each translates one kind of caller onto src-main/operations. */
const DOORS = ['cli', 'appapi', 'http'];
/** Chain clients: only src-main/anchor talks to a chain. */
const CHAIN_MODULES = ['viem'];
const CHAIN_MESSAGE = `Only src-main/anchor talks to a chain. ${LAYERS}`;
const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Bare module names no isomorphic or renderer file may import. */
const nodeOnlyModules = [...nodeBuiltins, 'electron', 'better-sqlite3', 'yauzl', 'yazl', 'tsx', 'viem'];

export default tseslint.config(
  {
    ignores: [
      'src-shared/schemas/*.generated.js',
      'node_modules/**',
      'out/**',
      'dist/**',
      'coverage/**',
      'e2e/artifacts/**',
      'docs/screenshots/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    plugins: { import: importPlugin },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] } },
      // The files import/no-cycle parses to follow imports: ours (the default is .js alone), and
      // never a package's (parsing viem or electron with the TypeScript parser takes minutes).
      'import/extensions': ['.ts', '.tsx'],
      'import/ignore': ['node_modules'],
    },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports only (docs/architecture.md, STYLE).' },
      ],
      'import/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src-shared',
              from: ['./src-main', './src-renderer', './bench', './e2e'],
              message: `src-shared is isomorphic and imports only src-shared. ${LAYERS}`,
            },
            {
              target: './src-renderer',
              from: ['./src-main', './bench', './e2e'],
              message: `src-renderer imports src-shared only, never src-main. ${LAYERS}`,
            },
            {
              target: './src-main',
              from: ['./src-renderer'],
              message: `src-main never imports the renderer; share code through src-shared. ${LAYERS}`,
            },
            // Doors are thin and never import each other: the CLI, the app API (IPC and web mode)
            // and the HTTP service each translate, and all call src-main/operations. The shell in
            // src-main/app assembles doors (it starts web mode for `evroom app`).
            ...DOORS.map((door) => ({
              target: `./src-main/${door}`,
              from: DOORS.filter((other) => other !== door).map((other) => `./src-main/${other}`),
              message: `Doors (${DOORS.join(', ')}) never import each other; move shared work into src-main/operations. ${LAYERS}`,
            })),
            {
              target: './src-main/operations',
              from: [...DOORS.map((door) => `./src-main/${door}`), './src-main/app'],
              message: `The operations layer sits below every door and the shell; it never imports them. ${LAYERS}`,
            },
            // The service's routes are plugins beneath service.ts: they read their context from the
            // instance (src-main/http/context.ts), never from the module that registers them, and
            // share code through modules beneath them, never through each other.
            {
              target: './src-main/http/routes/!(*.test).ts',
              from: ['./src-main/http/service.ts', './src-main/http/routes'],
              message: `A route imports neither src-main/http/service.ts nor another route; share through src-main/http/context.ts or a module beside it. ${LAYERS}`,
            },
            {
              target: './src-main/http/!(service|*.test).ts',
              from: ['./src-main/http/service.ts', './src-main/http/routes'],
              message: `Only src-main/http/service.ts registers the routes; the modules beneath them import neither it nor a route. ${LAYERS}`,
            },
            // core (the crypto provider, the verification workers and what they run) sits beneath the
            // zip library: the workers are handed plain bytes and never reach up into it.
            {
              target: './src-main/core',
              from: ['./src-main/evidence', ...DOORS.map((door) => `./src-main/${door}`)],
              message: `src-main/core sits beneath src-main/evidence and the doors; it never imports them. ${LAYERS}`,
            },
          ],
        },
      ],
    },
  },
  {
    // No import cycles inside the app's three layers: a module's dependencies load before it, so
    // a cycle means one of them runs against a half-initialised module. Type-only imports are
    // erased at build time and ignored here; put a type two modules share in the module below both.
    // Test files are left out: nothing imports one, so none can close a cycle.
    files: ['src-main/**/*.ts', 'src-shared/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      // disableScc: the rule's strongly-connected-components pre-pass throws on a file that is not
      // on disk (an editor's unsaved buffer, ESLint.lintText in scripts/eslint-layering.test.ts).
      'import/no-cycle': ['error', { ignoreExternal: true, disableScc: true }],
    },
  },
  {
    // The isomorphic core: no Node, no Electron, no DOM.
    files: ['src-shared/**/*.ts'],
    ignores: ['src-shared/**/*.test.ts'],
    languageOptions: { globals: { ...globals['shared-node-browser'] } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnlyModules.map((name) => ({ name, message: `src-shared must stay isomorphic. ${LAYERS}` })),
          patterns: [
            { group: ['node:*'], message: `src-shared must stay isomorphic. ${LAYERS}` },
            {
              group: ['**/src-main/**', '**/src-renderer/**'],
              message: `src-shared imports only src-shared. ${LAYERS}`,
            },
          ],
        },
      ],
    },
  },
  {
    // The renderer: browser only; talks to main through the app API transport.
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnlyModules.map((name) => ({ name, message: `The renderer has no Node access. ${LAYERS}` })),
          patterns: [
            { group: ['node:*'], message: `The renderer has no Node access. ${LAYERS}` },
            { group: ['**/src-main/**'], message: `The renderer never imports src-main. ${LAYERS}` },
          ],
        },
      ],
    },
  },
  {
    // Ownership inside src-main: only the ledger touches SQLite, only evidence touches zips.
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/ledger/**', 'src-main/evidence/**', 'src-main/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              message: `Only src-main/ledger talks to SQLite; use its repositories. ${LAYERS}`,
            },
            { name: 'pg', message: `Only src-main/ledger talks to PostgreSQL; use the service store. ${LAYERS}` },
            { name: 'yauzl', message: `Only src-main/evidence reads or writes zip files. ${LAYERS}` },
            { name: 'yazl', message: `Only src-main/evidence reads or writes zip files. ${LAYERS}` },
            {
              name: 'jszip',
              message: `jszip is for the browser verifier; the main process uses src-main/evidence. ${LAYERS}`,
            },
            ...CHAIN_MODULES.map((name) => ({ name, message: CHAIN_MESSAGE })),
          ],
          patterns: [{ group: ['viem/*'], message: CHAIN_MESSAGE }],
        },
      ],
    },
  },
  {
    // src-main/anchor is the one room that talks to a chain; SQLite and zips stay out of it.
    files: ['src-main/anchor/**/*.ts'],
    ignores: ['src-main/anchor/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'better-sqlite3',
              message: `Only src-main/ledger talks to SQLite; use its repositories. ${LAYERS}`,
            },
            { name: 'pg', message: `Only src-main/ledger talks to PostgreSQL. ${LAYERS}` },
            ...['yauzl', 'yazl', 'jszip'].map((name) => ({
              name,
              message: `Only src-main/evidence reads or writes zip files. ${LAYERS}`,
            })),
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/ledger/**/*.ts'],
    ignores: ['src-main/ledger/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...['yauzl', 'yazl', 'jszip'].map((name) => ({
              name,
              message: `Only src-main/evidence reads or writes zip files. ${LAYERS}`,
            })),
            ...CHAIN_MODULES.map((name) => ({ name, message: CHAIN_MESSAGE })),
          ],
          patterns: [{ group: ['viem/*'], message: CHAIN_MESSAGE }],
        },
      ],
    },
  },
  {
    files: ['src-main/evidence/**/*.ts'],
    ignores: ['src-main/evidence/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'better-sqlite3', message: `Only src-main/ledger talks to SQLite. ${LAYERS}` },
            { name: 'pg', message: `Only src-main/ledger talks to PostgreSQL. ${LAYERS}` },
            ...CHAIN_MODULES.map((name) => ({ name, message: CHAIN_MESSAGE })),
          ],
          patterns: [
            { group: ['viem/*'], message: CHAIN_MESSAGE },
            {
              group: ['**/operations/**', ...DOORS.map((door) => `**/${door}/**`)],
              message: `src-main/evidence is the zip library beneath the operations (the import is operations/import.ts). ${LAYERS}`,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'e2e/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Config files of tools require a default export.
    files: ['*.config.ts', '*.config.js', 'e2e/vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
