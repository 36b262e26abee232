import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_API_BODY_BYTES, startWebServer, type RunningWebServer } from './web-server';

// Local web mode's HTTP door over real HTTP on 127.0.0.1, with a stand-in app API that
// answers every method (what is tested here is what reaches it, and what does not).

const TOKEN = 'test-token-0123456789';

function request(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    declaredLength?: number;
  },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.declaredLength !== undefined) headers['content-length'] = options.declaredLength;
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/api/info', headers },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    if (options.declaredLength !== undefined) {
      // Declare a huge body and send none of it: the answer must not wait for it.
      outgoing.flushHeaders();
      return;
    }
    outgoing.end(options.body);
  });
}

/** Sends a body in chunks without declaring its length (chunked transfer encoding). */
function chunkedUpload(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
  chunks: number,
  chunkBytes: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
      },
    );
    // The server may stop reading and answer before every chunk is written.
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    const chunk = Buffer.alloc(chunkBytes, 7);
    for (let index = 0; index < chunks; index += 1) outgoing.write(chunk);
    outgoing.end();
  });
}

/** What the stand-in upload handler saw: the file's path, its bytes, its mode, the name. */
interface SeenUpload {
  file: string;
  bytes: Buffer;
  mode: number;
  directoryMode: number;
  name: string;
}

const MAX_UPLOAD = 1024 * 1024;

describe('local web mode', () => {
  let directory: string;
  let outside: string;
  let server: RunningWebServer;
  const calls: string[] = [];
  const uploads: SeenUpload[] = [];

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-outside-'));
    fs.writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>probe</title>');
    fs.writeFileSync(path.join(directory, 'inside.txt'), 'inside the renderer folder');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'a file outside the renderer folder');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(directory, 'leak.txt'));
    fs.symlinkSync(outside, path.join(directory, 'assets-out'));
    fs.symlinkSync(path.join(directory, 'inside.txt'), path.join(directory, 'alias.txt'));
    server = await startWebServer({
      rendererDirectory: directory,
      port: 0,
      token: TOKEN,
      maxUploadBytes: MAX_UPLOAD,
      api: async (method) => {
        calls.push(method);
        return { method };
      },
      uploads: {
        'imports.start': async (file, name, cleanup) => {
          uploads.push({
            file,
            bytes: fs.readFileSync(file),
            mode: fs.statSync(file).mode & 0o777,
            directoryMode: fs.statSync(path.dirname(file)).mode & 0o777,
            name,
          });
          if (name === 'refuse.zip') throw new Error('a stand-in failure');
          cleanup();
          return { jobId: 'job-1', name };
        },
      },
    });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(directory, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

  it('answers the app’s own page, with or without an Origin header', async () => {
    expect((await request(server.port, { headers: auth, body: '{}' })).status).toBe(200);
    expect(
      (await request(server.port, { headers: { ...auth, origin: `http://127.0.0.1:${server.port}` }, body: '{}' }))
        .status,
    ).toBe(200);
    expect(
      JSON.parse(
        (
          await request(server.port, {
            headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
            body: '{}',
          })
        ).body,
      ),
    ).toEqual({ ok: true, result: { method: 'info' } });
  });

  it('refuses another origin even with the token, another media type, and a declared body over the limit, before the API runs', async () => {
    const before = calls.length;
    const foreign = await request(server.port, { headers: { ...auth, origin: 'https://evil.example' }, body: '{}' });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    const text = await request(server.port, { headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    expect(JSON.parse(text.body)).toMatchObject({ error: { code: 'unsupported_media_type' } });
    const started = Date.now();
    const huge = await request(server.port, { headers: auth, declaredLength: 10 ** 12 });
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(Date.now() - started).toBeLessThan(5000);
    const badPath = await request(server.port, { headers: auth, path: '/api/%E0%A4%A', body: '{}' });
    expect(badPath.status).toBe(400);
    expect(calls.length).toBe(before);
  });

  const upload = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' };

  /** Temporary upload folders currently in the system's temporary folder. */
  function uploadFolders(): string[] {
    return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('evroom-upload-'));
  }

  it('takes an upload as raw bytes into a 0600 temporary file, hands it over, and the file is gone after cleanup', async () => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 31) % 256));
    const answer = await request(server.port, {
      path: `/upload/imports.start?name=${encodeURIComponent('my bundle ü.zip')}`,
      headers: upload,
      body: bytes,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true, result: { jobId: 'job-1', name: 'my bundle ü.zip' } });
    const seen = uploads.at(-1);
    expect(seen?.bytes.equals(bytes)).toBe(true);
    expect(seen?.mode).toBe(0o600);
    expect(seen?.directoryMode).toBe(0o700);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.existsSync(path.dirname(seen?.file ?? ''))).toBe(false);
    const zip = await request(server.port, {
      path: '/upload/imports.start?name=b.zip',
      headers: { ...upload, 'content-type': 'application/zip' },
      body: Buffer.from('PK'),
    });
    expect(zip.status).toBe(200);
  });

  it('answers a failing upload handler with the error envelope and removes the file', async () => {
    const answer = await request(server.port, {
      path: '/upload/imports.start?name=refuse.zip',
      headers: upload,
      body: Buffer.from('bytes'),
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: { code: 'internal' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.existsSync(path.dirname(uploads.at(-1)?.file ?? ''))).toBe(false);
  });

  it('refuses uploads without the token, from another origin, of another media type, to an unknown method or with a bad name, before anything is written', async () => {
    const before = uploads.length;
    const foldersBefore = uploadFolders().length;
    const body = Buffer.from('PK');
    expect(
      (
        await request(server.port, {
          path: '/upload/imports.start',
          headers: { 'content-type': 'application/octet-stream' },
          body,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await request(server.port, {
          path: '/upload/imports.start',
          headers: { ...upload, authorization: 'Bearer wrong-token-0123456789' },
          body,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await request(server.port, {
          path: '/upload/imports.start',
          headers: { ...upload, origin: 'https://evil.example' },
          body,
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await request(server.port, {
          path: '/upload/imports.start',
          headers: { ...upload, host: 'evil.example' },
          body,
        })
      ).status,
    ).toBe(403);
    expect((await request(server.port, { method: 'GET', path: '/upload/imports.start', headers: upload })).status).toBe(
      405,
    );
    const json = await request(server.port, {
      path: '/upload/imports.start',
      headers: { ...upload, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    expect(JSON.parse(json.body)).toMatchObject({ error: { code: 'unsupported_media_type' } });
    const unknown = await request(server.port, { path: '/upload/verify', headers: upload, body });
    expect(unknown.status).toBe(404);
    expect((await request(server.port, { path: '/upload/toString', headers: upload, body })).status).toBe(404);
    expect((await request(server.port, { path: '/upload/%E0%A4%A', headers: upload, body })).status).toBe(400);
    const badName = await request(server.port, {
      path: `/upload/imports.start?name=${encodeURIComponent('a\nb.zip')}`,
      headers: upload,
      body,
    });
    expect(badName.status).toBe(400);
    expect(JSON.parse(badName.body)).toMatchObject({
      error: { code: 'invalid_request', details: [{ path: '/name' }] },
    });
    expect(
      (await request(server.port, { path: `/upload/imports.start?name=${'x'.repeat(513)}`, headers: upload, body }))
        .status,
    ).toBe(400);
    expect(uploads.length).toBe(before);
    expect(uploadFolders().length).toBe(foldersBefore);
  });

  it('refuses an upload over the limit: a declared length at once, an undeclared one as soon as it passes the limit, and keeps no file', async () => {
    const before = uploads.length;
    const foldersBefore = uploadFolders().length;
    const started = Date.now();
    const declared = await request(server.port, {
      path: '/upload/imports.start',
      headers: upload,
      declaredLength: 10 ** 12,
    });
    expect(declared.status).toBe(413);
    expect(Date.now() - started).toBeLessThan(5000);
    const streamed = await chunkedUpload(server.port, '/upload/imports.start?name=big.zip', upload, 40, 64 * 1024);
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body)).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
    const exact = await chunkedUpload(server.port, '/upload/imports.start?name=exact.zip', upload, 16, MAX_UPLOAD / 16);
    expect(exact.status).toBe(200);
    expect(uploads.length).toBe(before + 1);
    expect(uploads.at(-1)?.bytes.length).toBe(MAX_UPLOAD);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(uploadFolders().length).toBe(foldersBefore);
  });

  it('keeps JSON bodies small now that files are uploaded: a declared JSON body over MAX_API_BODY_BYTES is 413', async () => {
    const answer = await request(server.port, { headers: auth, declaredLength: MAX_API_BODY_BYTES + 1 });
    expect(answer.status).toBe(413);
    expect(MAX_API_BODY_BYTES).toBeLessThan(100 * 1024 * 1024);
  });

  it('serves files inside its folder, follows a symlink that stays inside, and never one that leads out', async () => {
    const get = (urlPath: string) => request(server.port, { method: 'GET', path: urlPath });
    const inside = await get('/inside.txt');
    expect(inside).toMatchObject({ status: 200, body: 'inside the renderer folder' });
    expect(await get('/alias.txt')).toMatchObject({ status: 200, body: 'inside the renderer folder' });
    for (const urlPath of [
      '/leak.txt',
      '/assets-out/secret.txt',
      '/assets-out/',
      '/..%2F' + path.basename(outside) + '/secret.txt',
      '/%2e%2e/' + path.basename(outside) + '/secret.txt',
    ]) {
      const answer = await get(urlPath);
      expect(answer.status, urlPath).not.toBe(200);
      expect(answer.body, urlPath).not.toContain('outside the renderer folder');
    }
  });
});
