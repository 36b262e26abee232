/**
 * The benches' quick modes, run by `npm test` so that a bench that no longer runs fails CI.
 *
 * Every `bench/NAME.ts` is a bench, except this file, harness.ts, fixtures.ts and tests. Each accepts
 * `--quick` (seconds, small data: a check that it works, not a measurement) and prints its
 * targets: the runner requires exit code 0 and the word "target" in the output.
 *
 * A bench that needs the built app (out/renderer, out/verifier: it drives the UI in Chromium)
 * says so with the line `// bench-quick: needs-build`; those run in the browser suite
 * (e2e/bench-quick.e2e.ts, after `npm run build`), the others in the unit tests
 * (bench/quick.test.ts).
 *
 * To add a bench: write bench/NAME.ts with a `--quick` mode that prints "target", and add the
 * marker line if it needs the build. Nothing else. A bench with a quick test of its own
 * (bench/NAME.quick.test.ts: anchor, fuzz, soak) is run by that test instead.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIRECTORY = fileURLToPath(new URL('./', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NOT_BENCHES = new Set(['harness.ts', 'quick.ts', 'fixtures.ts']);
/** The marker line of a bench that needs `npm run build` first. */
export const NEEDS_BUILD_MARKER = '// bench-quick: needs-build';

/** One bench file. */
export interface BenchFile {
  name: string;
  path: string;
  needsBuild: boolean;
}

/** Every bench in bench/, by the naming rule above, sorted by name. */
export function listBenches(): BenchFile[] {
  return readdirSync(BENCH_DIRECTORY)
    .filter(
      (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') && !NOT_BENCHES.has(name),
    )
    .sort()
    .map((name) => {
      const path = join(BENCH_DIRECTORY, name);
      return {
        name,
        path,
        needsBuild: readFileSync(path, 'utf8')
          .split('\n')
          .some((line) => line.trim() === NEEDS_BUILD_MARKER),
      };
    });
}

/** What a quick run did. */
export interface QuickRun {
  code: number | null;
  output: string;
  seconds: number;
}

/**
 * Runs `npx tsx bench/NAME.ts --quick` from the repository root; stopped (SIGKILL, with its
 * process group) after `timeoutMs`.
 */
export function runQuick(bench: BenchFile, timeoutMs: number): Promise<QuickRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), bench.path, '--quick'],
      {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      output += `\n(stopped after ${timeoutMs / 1000} s)`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}
