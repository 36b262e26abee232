/**
 * bench/upload.ts: peak memory of local web mode while it takes a large bundle upload.
 *
 * Web mode (src-main/app/web-mode.ts, the real composition over a fresh data folder) runs in a
 * child process; this process sends it one large file and reads the child's peak RSS (VmHWM in
 * /proc/<pid>/status) before and after. Two ways to send:
 * - `upload` (today): the raw bytes to `POST /upload/imports.start`, streamed to a temporary file;
 * - `json` (before the hardening issue): the bytes as base64url inside `POST /api/imports.start`,
 *   which this code now refuses (413) above MAX_API_BODY_BYTES. Run it with `--repo DIR` naming a
 *   checkout from before the change to measure the old path.
 * The bytes are random (not a zip), so the import job fails at once and what is measured is the
 * transfer. The raw primitive of the same run is the child's RSS at rest.
 *
 * Options: --mode upload|json (default upload), --mib N (default 350; in json mode N MiB of
 * base64url text, the most the old contract took), --repo DIR (default this checkout).
 * Target (issue "Hardening"): the upload's peak stays within 100 MB of the child at rest.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { startLocalWebMode } from '../src-main/app/web-mode';

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

const THIS_FILE = fileURLToPath(import.meta.url);
const REPO = path.resolve(argument('repo') ?? path.join(path.dirname(THIS_FILE), '..'));

/** The child: web mode over a fresh data folder, its port on stdout. */
async function child(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bench-upload-'));
  const renderer = path.join(home, 'renderer');
  fs.mkdirSync(renderer);
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>bench</title>');
  const module = (await import(pathToFileURL(path.join(REPO, 'src-main/app/web-mode.ts')).href)) as {
    startLocalWebMode: typeof startLocalWebMode;
  };
  const running = await module.startLocalWebMode({
    dataDirectory: path.join(home, 'data'),
    rendererDirectory: renderer,
    port: 0,
  });
  console.log(JSON.stringify({ port: running.port, token: new URL(running.url).hash.slice('#token='.length) }));
  process.on('SIGTERM', () => {
    void running.close().then(() => {
      fs.rmSync(home, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

/** Peak and current RSS of a process, in MiB (Linux). */
function memoryOf(pid: number): { peak: number; rss: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { peak: field('VmHWM'), rss: field('VmRSS') };
}

/** Base64url text of `bytes` random bytes, made slice by slice (this process stays small too). */
function* base64Slices(bytes: number): Generator<Buffer> {
  const slice = 3 * 1024 * 1024;
  for (let done = 0; done < bytes; done += slice)
    yield Buffer.from(randomBytes(Math.min(slice, bytes - done)).toString('base64url'));
}

function* rawSlices(bytes: number): Generator<Buffer> {
  const slice = 4 * 1024 * 1024;
  for (let done = 0; done < bytes; done += slice) yield randomBytes(Math.min(slice, bytes - done));
}

async function send(
  port: number,
  token: string,
  mode: 'upload' | 'json',
  mib: number,
): Promise<{ status: number; body: string; bytes: number }> {
  let bytes: number;
  let body: Iterable<Buffer>;
  let requestPath: string;
  let type: string;
  if (mode === 'upload') {
    bytes = mib * 1024 * 1024;
    body = rawSlices(bytes);
    requestPath = '/upload/imports.start?name=bench.zip';
    type = 'application/octet-stream';
  } else {
    // N MiB of base64url text: the raw length whose encoding is that long (a multiple of 3).
    const raw = Math.floor((mib * 1024 * 1024 * 3) / 4 / 3) * 3;
    const head = Buffer.from('{"name":"bench.zip","data":"');
    const tail = Buffer.from('"}');
    bytes = head.length + (raw / 3) * 4 + tail.length;
    body = (function* () {
      yield head;
      yield* base64Slices(raw);
      yield tail;
    })();
    requestPath = '/api/imports.start';
    type = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: requestPath,
        headers: {
          host: `127.0.0.1:${port}`,
          authorization: `Bearer ${token}`,
          'content-type': type,
          'content-length': bytes,
        },
      },
      (incoming) => {
        let text = '';
        incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: text, bytes }));
      },
    );
    outgoing.on('error', reject);
    Readable.from(body).pipe(outgoing);
  });
}

async function main(): Promise<void> {
  const mode = (argument('mode') ?? 'upload') as 'upload' | 'json';
  if (mode !== 'upload' && mode !== 'json') throw new Error('--mode is upload or json');
  const mib = Number(argument('mib') ?? 350);
  const server = spawn(process.execPath, ['--import', 'tsx', THIS_FILE, '--child', '--repo', REPO], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: REPO,
  });
  try {
    const { port, token } = await new Promise<{ port: number; token: string }>((resolve, reject) => {
      let output = '';
      server.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const line = output.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { port: number; token: string });
      });
      server.on('exit', (code) => reject(new Error(`web mode exited with ${String(code)}`)));
    });
    const pid = server.pid ?? 0;
    const rest = memoryOf(pid);
    const started = performance.now();
    const answer = await send(port, token, mode, mib);
    const seconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = memoryOf(pid);
    console.log(
      `bench/upload.ts: web mode from ${REPO}, mode ${mode}, ${(answer.bytes / 1024 / 1024).toFixed(1)} MiB sent in ${seconds.toFixed(1)} s; node ${process.version}, ${os.cpus().length} cores`,
    );
    console.log(`answer: HTTP ${answer.status} ${answer.body.slice(0, 160)}`);
    console.log(
      `child RSS at rest ${rest.rss.toFixed(0)} MiB; peak RSS after the upload ${after.peak.toFixed(0)} MiB (growth ${(after.peak - rest.peak).toFixed(0)} MiB)`,
    );
    if (mode === 'upload')
      console.log(
        `target: the upload raises peak RSS by under 100 MiB: ${after.peak - rest.peak <= 100 ? 'met' : 'MISSED'}`,
      );
    if (mode === 'upload' && answer.status === 200 && after.peak - rest.peak > 100) {
      console.error('the upload raised peak memory by more than 100 MiB');
      process.exitCode = 1;
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

if (process.argv.includes('--child')) await child();
else await main();
