/**
 * The e2e harness: the real app in local web mode (a child process, as a user starts it) and
 * Debian's Chromium driven by playwright-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ARTIFACTS = join(REPO_ROOT, 'e2e', 'artifacts');

/** Chromium flags for this machine: headless, as root, and quiet on a closed network. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

export interface RunningApp {
  url: string;
  home: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `evroom app --web --no-open` with a fresh EVROOM_HOME and waits for its first line.
 */
export async function startWebApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const home = mkdtempSync(join(tmpdir(), 'evroom-e2e-'));
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'evroom.mjs'), 'app', '--web', '--no-open'], {
    cwd: REPO_ROOT,
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const firstLine = await new Promise<string>((resolveLine, rejectLine) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => rejectLine(new Error(`app did not start in time; stderr: ${stderr}`)), 60_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolveLine(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      rejectLine(new Error(`app exited with ${code}; stderr: ${stderr}`));
    });
  });
  const match = /^Evidence Room at (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)$/.exec(firstLine);
  if (!match?.[1]) throw new Error(`unexpected first line: ${firstLine}`);
  // An app that ends before the test stops it is a failure of its own: say how it ended and
  // what it wrote, or the test only sees refused connections and time-outs.
  let stopping = false;
  const ended = new Promise<void>((resolveEnded) => {
    child.once('exit', (code, signal) => {
      if (!stopping)
        console.error(
          `e2e harness: the app (pid ${child.pid}) ended before the test stopped it: ${signal === null ? `exit code ${code}` : `signal ${signal}`}; its standard error:\n${stderr.slice(-20_000)}`,
        );
      resolveEnded();
    });
  });
  return {
    url: match[1],
    home,
    process: child,
    stop: async () => {
      stopping = true;
      // exitCode stays null for a process ended by a signal: look at both.
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await ended;
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Launches Debian's Chromium. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

/** The folder for a test's screenshots and traces. */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/**
 * Calls the app API of a running web-mode app as the renderer does (POST /api/METHOD with the
 * session token from the app's URL).
 *
 * @returns The call's result.
 * @throws Error `METHOD: CODE MESSAGE` when the call fails.
 */
export async function callApi<T = unknown>(app: RunningApp, method: string, input: unknown = {}): Promise<T> {
  const url = new URL(app.url);
  const token = /token=([A-Za-z0-9_-]+)/.exec(url.hash)?.[1] ?? '';
  const response = await fetch(`${url.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { result?: T; error?: { code: string; message: string } };
  if (!response.ok || body.error)
    throw new Error(`${method}: ${body.error?.code ?? response.status} ${body.error?.message ?? ''}`);
  return body.result as T;
}
