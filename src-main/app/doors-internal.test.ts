import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AppApiAnswer } from '../../src-shared/api/contract';
import { createAppApi } from '../appapi/app-api';
import { startService } from './service-mode';
import { startLocalWebMode } from './web-mode';

// A defect inside an operation (a TypeError, thrown on purpose by the failpoint
// operations.verify) reaches no caller through any door: each answers `internal` with the
// generic message and a correlation id, never the TypeError's text, and the door's log line
// carries the same id with the original message.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const FAILPOINT = 'operations.verify=throw-type-error';
/** What the failpoint's TypeError says; no answer may contain it. */
const DEFECT_TEXT = 'failpoint operations.verify';
const REF = /^internal error \(ref ([0-9a-f]{16})\)$/;
const saved = process.env.EVROOM_FAILPOINTS;

let directory: string;
let home: string;
let rendererDirectory: string;

beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-internal-'));
  home = path.join(directory, 'home');
  rendererDirectory = path.join(directory, 'renderer');
  fs.mkdirSync(rendererDirectory);
  fs.writeFileSync(path.join(rendererDirectory, 'index.html'), '<!doctype html><title>probe</title>');
});

afterEach(() => {
  if (saved === undefined) delete process.env.EVROOM_FAILPOINTS;
  else process.env.EVROOM_FAILPOINTS = saved;
});

afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

/** The answer's envelope is `internal`, generic, with its id; returns the id. */
function expectInternal(error: { code: string; message: string; details: unknown; ref?: unknown }): string {
  expect(error.code).toBe('internal');
  expect(error.details).toEqual([]);
  const ref = REF.exec(error.message)?.[1];
  expect(ref, error.message).toBeDefined();
  expect(error.ref).toBe(ref);
  return ref as string;
}

describe('an internal fault behind every door', () => {
  it('CLI: one line with the correlation id, exit 2; EVROOM_DEBUG adds the log line with the original', () => {
    const run = (debug: boolean): ReturnType<typeof spawnSync> =>
      spawnSync(process.execPath, [BIN, 'verify', '-'], {
        input: '{}',
        encoding: 'utf8',
        env: {
          ...process.env,
          EVROOM_HOME: home,
          NO_COLOR: '1',
          EVROOM_FAILPOINTS: FAILPOINT,
          EVROOM_DEBUG: debug ? '1' : '',
        },
      });
    const plain = run(false);
    expect(plain.status).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toMatch(
      /^evroom: internal error \(ref [0-9a-f]{16}\) \(internal\)\nevroom: this is a fault of evroom, not of your input; EVROOM_DEBUG=1 shows its details \(report them with the ref\)\n$/,
    );
    expect(plain.stderr).not.toContain(DEFECT_TEXT);

    const debug = run(true);
    expect(debug.status).toBe(2);
    const [answer, ...log] = String(debug.stderr).split('\n');
    const ref = /^evroom: internal error \(ref ([0-9a-f]{16})\) \(internal\)$/.exec(answer ?? '')?.[1];
    expect(ref, answer).toBeDefined();
    expect(log.join('\n')).toContain(`internal error ref ${ref}: TypeError: ${DEFECT_TEXT}`);
    expect(log.join('\n')).toMatch(/\n\s+at /);
  });

  it('IPC: the handler’s answer is internal with the id; the app API’s log has the original', async () => {
    const lines: string[] = [];
    const api = createAppApi({ mode: 'electron', dataDirectory: home, log: (line) => lines.push(line) });
    try {
      process.env.EVROOM_FAILPOINTS = FAILPOINT;
      const answer = await api.answer('verify', { text: '{}' });
      expect(answer.ok).toBe(false);
      const ref = expectInternal((answer as Extract<AppApiAnswer, { ok: false }>).error);
      expect(JSON.stringify(answer)).not.toContain(DEFECT_TEXT);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`internal error ref ${ref}: TypeError: ${DEFECT_TEXT}`);
    } finally {
      api.close();
    }
  });

  it('web mode: 500 with the envelope over real HTTP; the log has the id and the original', async () => {
    const lines: string[] = [];
    const web = await startLocalWebMode({
      dataDirectory: home,
      rendererDirectory,
      port: 0,
      log: (line) => lines.push(line),
    });
    try {
      const token = /#token=([A-Za-z0-9_-]+)/.exec(web.url)?.[1] ?? '';
      process.env.EVROOM_FAILPOINTS = FAILPOINT;
      const response = await fetch(`http://127.0.0.1:${web.port}/api/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ text: '{}' }),
      });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(text).not.toContain(DEFECT_TEXT);
      const answer = JSON.parse(text) as Extract<AppApiAnswer, { ok: false }>;
      expect(answer.ok).toBe(false);
      const ref = expectInternal(answer.error);
      expect(lines.join('\n')).toContain(`internal error ref ${ref}: TypeError: ${DEFECT_TEXT}`);
    } finally {
      await web.close();
    }
  });

  it('the HTTP service: 500 internal in PROTOCOL 10’s shape; the request log has the id and the original', async () => {
    const logStream = new PassThrough();
    let log = '';
    logStream.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const service = await startService({ dataDirectory: home, port: 0, anchor: false, verifyThreads: 0, logStream });
    try {
      process.env.EVROOM_FAILPOINTS = FAILPOINT;
      const response = await fetch(`${service.url}/v1/wearable/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(text).not.toContain(DEFECT_TEXT);
      const body = JSON.parse(text) as { error: { code: string; message: string; details: unknown; ref?: string } };
      const ref = expectInternal(body.error);
      const entry = log
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { ref?: string; err?: { message?: string; stack?: string } })
        .find((record) => record.ref === ref);
      expect(entry, log).toBeDefined();
      expect(entry?.err?.message).toContain(DEFECT_TEXT);
      expect(entry?.err?.stack).toContain(`TypeError: ${DEFECT_TEXT}`);
    } finally {
      delete process.env.EVROOM_FAILPOINTS;
      await service.close();
    }
  });
});
