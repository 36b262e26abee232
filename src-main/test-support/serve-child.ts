/**
 * `evroom serve` as a child process, for the tests that meet the service as operators do: started
 * on a free port in a data folder of the test's, ready once it printed its address and, when it
 * sells keys, where bought keys are delivered; stopped with SIGTERM.
 *
 * Not used by the program itself.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `evroom` command of this checkout. */
export const EVROOM_BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));

/** A running `evroom serve`. */
export interface ServedChild {
  child: ChildProcessWithoutNullStreams;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The embedded chain's JSON-RPC, when it anchors on one. */
  rpc: string | undefined;
  /** Everything it wrote to standard error so far. */
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `evroom serve --port 0 --quiet ARGS` with `EVROOM_HOME=home`.
 *
 * @param env - More environment (e.g. EVROOM_FAILPOINTS).
 * @throws Error with its standard error when it exits or takes over 60 s to listen
 */
export async function startServeChild(
  home: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ServedChild> {
  const child = spawn(process.execPath, [EVROOM_BIN, 'serve', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^Evidence Room service at (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`serve exited: ${stderr}`));
    });
  });
  // The lines after the address say which chain and where keys go; wait for the last of them.
  for (let tries = 0; !/Bought keys are delivered|No payments|Anchoring is off/.test(stderr) && tries < 400; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 25));
  const rpc = /Anchoring on [a-z0-9-]+ at (http:\/\/127\.0\.0\.1:\d+)\./.exec(stderr)?.[1];
  return { child, url, rpc, stderr: () => stderr, exited };
}

/** Stops it with SIGTERM (requests in flight finish, the ledger closes) and waits for the exit. */
export async function stopServeChild(served: ServedChild): Promise<void> {
  if (served.child.exitCode === null && served.child.signalCode === null) served.child.kill('SIGTERM');
  await served.exited;
}

/** Runs `evroom ARGS` with `EVROOM_HOME=home` to its end. */
export function runEvroom(
  home: string,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [EVROOM_BIN, ...args], {
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
