import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_API_BODY_BYTES,
  SESSION_PATH,
  secretsMatch,
  sessionCookieName,
  startWebServer,
  type RunningWebServer,
} from './web-server';

// Local web mode's HTTP door over real HTTP on 127.0.0.1, with a stand-in app API that
// answers every method (what is tested here is what reaches it, and what does not).

const TOKEN = 'test-token-0123456789';
/** The window's policy is the shell's; the server sends whatever it is given. */
const POLICY = "default-src 'none'; frame-ancestors 'none'; test-policy";

function request(
  port: number,
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    declaredLength?: number;
  },
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.declaredLength !== undefined) headers['content-length'] = options.declaredLength;
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/api/info', headers },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body, headers: incoming.headers }));
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

/**
 * Streams a chunked body of up to `total` bytes, writing only as fast as the server reads, and
 * stops at the first answer. Reports the answer and how many bytes the server let the client
 * write before answering.
 */
function streamUntilAnswered(
  port: number,
  urlPath: string,
  headers: Record<string, string>,
  total: number,
  chunkBytes = 256 * 1024,
): Promise<{ status: number; body: string; written: number }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: urlPath, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (incoming) => {
        answered = true;
        const writtenWhenAnswered = written;
        let body = '';
        incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body, written: writtenWhenAnswered }));
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    const chunk = Buffer.alloc(chunkBytes, 0x20);
    const pump = (): void => {
      while (!answered && !outgoing.destroyed && written < total) {
        written += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!answered && !outgoing.destroyed) outgoing.end();
    };
    pump();
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
  const inputs: unknown[] = [];
  const uploads: SeenUpload[] = [];
  const logged: string[] = [];

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
      contentSecurityPolicy: POLICY,
      maxUploadBytes: MAX_UPLOAD,
      log: (line) => logged.push(line),
      api: async (method, input) => {
        calls.push(method);
        inputs.push(input);
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
          if (name === 'refuse.zip') throw new TypeError('a stand-in failure at /secret/path');
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

  it('takes the Bearer scheme in any case (RFC 9110), and refuses another scheme or a wrong token', async () => {
    const before = calls.length;
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const answer = await request(server.port, {
        path: '/api/settings.get',
        headers: { ...auth, authorization: `${scheme} ${TOKEN}` },
        body: '{}',
      });
      expect(answer.status, scheme).toBe(200);
    }
    expect(calls.length).toBe(before + 3);
    for (const authorization of [`Basic ${TOKEN}`, `Bearer  ${TOKEN}`, `Bearer ${TOKEN}x`, TOKEN, 'bearer']) {
      const answer = await request(server.port, {
        path: '/api/settings.get',
        headers: { ...auth, authorization },
        body: '{}',
      });
      expect(answer.status, authorization).toBe(401);
    }
    expect(calls.length).toBe(before + 3);
  });

  it('answers a request target that is not a path (GET //[) with 400 in the error envelope, with the security headers', async () => {
    const before = calls.length;
    for (const [method, target] of [
      ['GET', '//['],
      ['GET', '/a[b]'],
      ['GET', '/%zz'],
      ['POST', '//[/api/info'],
      ['POST', '/api/info%'],
    ] as const) {
      const answer = await new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>(
        (resolve, reject) => {
          const outgoing = http.request(
            {
              host: '127.0.0.1',
              port: server.port,
              method,
              path: target,
              headers: { host: `127.0.0.1:${server.port}`, ...auth },
            },
            (incoming) => {
              let body = '';
              incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
              incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body, headers: incoming.headers }));
            },
          );
          outgoing.on('error', reject);
          outgoing.end(method === 'POST' ? '{}' : undefined);
        },
      );
      expect(answer.status, target).toBe(400);
      expect(JSON.parse(answer.body), target).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect(answer.headers['content-security-policy'], target).toBe(POLICY);
      expect(answer.headers['x-content-type-options'], target).toBe('nosniff');
    }
    expect(calls.length).toBe(before);
  });

  it('answers a request Node cannot parse (headers over its limit) in the envelope, with the security headers', async () => {
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nx-filler: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    });
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head.toLowerCase()).toContain(`content-security-policy: ${POLICY}`);
    expect(head.toLowerCase()).toContain('x-content-type-options: nosniff');
    expect(JSON.parse(body)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('sends the policy it was given, and the other security headers, on every answer', async () => {
    for (const answer of [
      await request(server.port, { method: 'GET', path: '/' }),
      await request(server.port, { method: 'GET', path: '/missing.js' }),
      await request(server.port, { headers: auth, body: '{}' }),
      await request(server.port, { headers: { 'content-type': 'application/json' }, body: '{}' }),
    ]) {
      expect(answer.headers['content-security-policy']).toBe(POLICY);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-frame-options']).toBe('DENY');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('takes application/json in any letter case (media types are case-insensitive)', async () => {
    for (const type of ['Application/JSON', 'APPLICATION/JSON; Charset=UTF-8']) {
      const answer = await request(server.port, {
        headers: { ...auth, 'content-type': type },
        body: '{"case":"insensitive"}',
      });
      expect(answer.status, type).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ ok: true, result: { method: 'info' } });
      expect(inputs.at(-1)).toEqual({ case: 'insensitive' });
    }
  });

  it('parses bodies strictly: duplicate member names and invalid UTF-8 are invalid_request, and the API never runs', async () => {
    const before = calls.length;
    const duplicate = await request(server.port, { headers: auth, body: '{"key_id":"a","key_id":"b"}' });
    expect(duplicate.status).toBe(400);
    expect(JSON.parse(duplicate.body)).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ path: '/key_id', message: 'duplicate_name' }] },
    });
    const invalid = await request(server.port, {
      headers: auth,
      body: Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', details: [{ message: 'invalid_utf8' }] },
    });
    const loose = await request(server.port, { headers: auth, body: '{"a":1,}' });
    expect(loose.status).toBe(400);
    expect(JSON.parse(loose.body)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(calls.length).toBe(before);
    // An empty body is still a call without input, as before.
    expect((await request(server.port, { headers: auth, body: '' })).status).toBe(200);
    expect(inputs.at(-1)).toBeUndefined();
  });

  it('refuses a chunked JSON body with 413 as soon as it passes the limit, and stops reading it', async () => {
    let reached = 0;
    const limited = await startWebServer({
      rendererDirectory: directory,
      port: 0,
      token: TOKEN,
      contentSecurityPolicy: POLICY,
      maxApiBodyBytes: 64 * 1024,
      api: async () => {
        reached += 1;
        return {};
      },
    });
    try {
      const total = 256 * 1024 * 1024;
      const answer = await streamUntilAnswered(limited.port, '/api/verify', auth, total);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
      // The server answered long before the client could send the body: it read about the limit
      // (the rest of what was written sat in socket buffers), not the body.
      expect(answer.written).toBeLessThan(32 * 1024 * 1024);
      expect(reached).toBe(0);
      // A body of exactly the limit (JSON white space: no input) is still read whole.
      const fits = await streamUntilAnswered(limited.port, '/api/verify', auth, 64 * 1024, 4096);
      expect(fits).toMatchObject({ status: 200, written: 64 * 1024 });
      expect(reached).toBe(1);
    } finally {
      await limited.close();
    }
  }, 60_000);

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
    const body = JSON.parse(answer.body) as { ok: false; error: { code: string; message: string; ref: string } };
    expect(body).toMatchObject({ ok: false, error: { code: 'internal' } });
    // The fault's text stays on this side; its log line carries the reference the answer gives.
    expect(answer.body).not.toContain('stand-in');
    expect(answer.body).not.toContain('/secret/path');
    expect(body.error.message).toBe(`internal error (ref ${body.error.ref})`);
    const line = logged.find((entry) => entry.includes(body.error.ref));
    expect(line).toContain('a stand-in failure at /secret/path');
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

describe('local web mode: the session cookie shared by the tabs of one browser', () => {
  let directory: string;
  let server: RunningWebServer;
  const calls: string[] = [];

  async function start(port = 0): Promise<RunningWebServer> {
    return startWebServer({
      rendererDirectory: directory,
      port,
      token: TOKEN,
      contentSecurityPolicy: POLICY,
      log: () => undefined,
      api: async (method) => {
        calls.push(method);
        return { method };
      },
      uploads: {
        'imports.start': async (_file, name, cleanup) => {
          cleanup();
          return { jobId: 'job-1', name };
        },
      },
    });
  }

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-session-'));
    fs.writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>probe</title>');
    server = await start();
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const json = { 'content-type': 'application/json' };
  function own(port: number): Record<string, string> {
    return { origin: `http://127.0.0.1:${port}` };
  }

  /** Trades the token for the cookie; answers the Set-Cookie line and the `name=value` pair. */
  async function exchange(running: RunningWebServer): Promise<{ line: string; pair: string; value: string }> {
    const answer = await request(running.port, {
      path: SESSION_PATH,
      headers: { ...json, ...own(running.port), authorization: `Bearer ${TOKEN}` },
      body: '{}',
    });
    expect(answer.status, answer.body).toBe(200);
    const line = ([answer.headers['set-cookie']].flat()[0] ?? '') as string;
    const pair = line.split(';')[0] ?? '';
    return { line, pair, value: pair.slice(pair.indexOf('=') + 1) };
  }

  it('trades the token for an HttpOnly, SameSite=Strict cookie on Path=/, of the browser session, that is not the token', async () => {
    const { line, pair, value } = await exchange(server);
    const attributes = line
      .split(';')
      .slice(1)
      .map((part) => part.trim().toLowerCase());
    expect(pair.startsWith(`${sessionCookieName(server.port)}=`)).toBe(true);
    expect(attributes).toContain('httponly');
    expect(attributes).toContain('samesite=strict');
    expect(attributes).toContain('path=/');
    // A session cookie: it ends with the browser session; no lifetime of its own.
    expect(attributes.some((part) => part.startsWith('max-age') || part.startsWith('expires'))).toBe(false);
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(value).not.toContain(TOKEN);
    // Each exchange gives the one secret of this process.
    expect((await exchange(server)).value).toBe(value);
  });

  it('answers /api and /upload with the cookie alone, from the app’s own origin', async () => {
    const { pair } = await exchange(server);
    const before = calls.length;
    const answer = await request(server.port, {
      path: '/api/settings.get',
      headers: { ...json, ...own(server.port), cookie: `other=1; ${pair}` },
      body: '{}',
    });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ok: true, result: { method: 'settings.get' } });
    expect(calls.length).toBe(before + 1);
    const localhost = await request(server.port, {
      path: '/api/info',
      headers: {
        ...json,
        host: `localhost:${server.port}`,
        origin: `http://localhost:${server.port}`,
        cookie: pair,
      },
      body: '{}',
    });
    expect(localhost.status).toBe(200);
    const uploaded = await request(server.port, {
      path: '/upload/imports.start?name=a.zip',
      headers: { 'content-type': 'application/octet-stream', ...own(server.port), cookie: pair },
      body: Buffer.from('PK'),
    });
    expect(uploaded.status, uploaded.body).toBe(200);
  });

  it('refuses the cookie from another origin, without an Origin, to another Host, and as anything but a JSON POST', async () => {
    const { pair } = await exchange(server);
    const before = calls.length;
    const foreign = await request(server.port, {
      headers: { ...json, origin: 'https://evil.example', cookie: pair },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // Another port of 127.0.0.1 is another origin (a cookie is sent to every port).
    const otherPort = await request(server.port, {
      headers: { ...json, origin: `http://127.0.0.1:${server.port + 1}`, cookie: pair },
      body: '{}',
    });
    expect(otherPort.status).toBe(403);
    const noOrigin = await request(server.port, { headers: { ...json, cookie: pair }, body: '{}' });
    expect(noOrigin.status).toBe(403);
    expect(JSON.parse(noOrigin.body).error.message).toMatch(/Origin/);
    const rebound = await request(server.port, {
      headers: { ...json, ...own(server.port), host: `evil.example:${server.port}`, cookie: pair },
      body: '{}',
    });
    expect(rebound.status).toBe(403);
    const form = await request(server.port, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...own(server.port), cookie: pair },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const get = await request(server.port, { method: 'GET', headers: { ...own(server.port), cookie: pair } });
    expect(get.status).toBe(405);
    const upload = await request(server.port, {
      path: '/upload/imports.start?name=a.zip',
      headers: { 'content-type': 'application/octet-stream', cookie: pair },
      body: Buffer.from('PK'),
    });
    expect(upload.status).toBe(403);
    expect(calls.length).toBe(before);
  });

  it('refuses a cookie the exchange did not give: a guess of the right length, the token itself, another port’s name, none', async () => {
    const { value } = await exchange(server);
    const name = sessionCookieName(server.port);
    const guess = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    const before = calls.length;
    for (const cookie of [
      `${name}=${guess}`,
      `${name}=${TOKEN}`,
      `${name}=`,
      `${name}=${value}x`,
      `${sessionCookieName(server.port + 1)}=${value}`,
      '',
    ]) {
      const answer = await request(server.port, { headers: { ...json, ...own(server.port), cookie }, body: '{}' });
      expect(answer.status, cookie).toBe(401);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'unauthorized' });
      expect(JSON.parse(answer.body).error.message).toContain('This tab has no session with the app');
    }
    // A wrong token is not rescued by a good cookie: what the request says it is, is checked.
    const wrongToken = await request(server.port, {
      headers: { ...json, ...own(server.port), authorization: 'Bearer wrong', cookie: `${name}=${value}` },
      body: '{}',
    });
    expect(wrongToken.status).toBe(401);
    expect(calls.length).toBe(before);
  });

  it('gives the cookie only for the token, with the Origin and Host checks, as a JSON POST without input', async () => {
    const { pair } = await exchange(server);
    const refusals: [Record<string, string>, string, number][] = [
      [{ ...json, ...own(server.port), cookie: pair }, '{}', 401],
      [{ ...json, ...own(server.port), authorization: 'Bearer wrong-token-0123456789' }, '{}', 401],
      [{ ...json, origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` }, '{}', 403],
      [{ ...json, host: `evil.example:${server.port}`, authorization: `Bearer ${TOKEN}` }, '{}', 403],
      [{ 'content-type': 'text/plain', ...own(server.port), authorization: `Bearer ${TOKEN}` }, '{}', 415],
      [{ ...json, ...own(server.port), authorization: `Bearer ${TOKEN}` }, '{"a":1}', 400],
    ];
    for (const [headers, body, status] of refusals) {
      const answer = await request(server.port, { path: SESSION_PATH, headers, body });
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    const get = await request(server.port, {
      method: 'GET',
      path: SESSION_PATH,
      headers: { ...own(server.port), authorization: `Bearer ${TOKEN}` },
    });
    expect(get.status).toBe(405);
    expect(get.headers['set-cookie']).toBeUndefined();
  });

  it('compares secrets in constant time over SHA-256 digests, whatever their lengths', () => {
    expect(secretsMatch('abc', 'abc')).toBe(true);
    expect(secretsMatch('abd', 'abc')).toBe(false);
    expect(secretsMatch('abcd', 'abc')).toBe(false);
    expect(secretsMatch('', 'abc')).toBe(false);
    expect(secretsMatch('', '')).toBe(false);
    expect(() => secretsMatch(undefined as unknown as string, 'abc')).toThrow(TypeError);
  });

  it('ends every session when the app restarts: a new process has a new secret on the same port', async () => {
    const first = await start();
    const port = first.port;
    const { pair, value } = await exchange(first);
    const ok = await request(port, { headers: { ...json, ...own(port), cookie: pair }, body: '{}' });
    expect(ok.status).toBe(200);
    await first.close();
    const second = await start(port);
    try {
      expect(second.port).toBe(port);
      const stale = await request(port, { headers: { ...json, ...own(port), cookie: pair }, body: '{}' });
      expect(stale.status).toBe(401);
      expect(JSON.parse(stale.body).error.message).toContain('open the address the app printed');
      expect((await exchange(second)).value).not.toBe(value);
    } finally {
      await second.close();
    }
  });
});
