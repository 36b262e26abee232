import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, type RunningWebServer } from './web-server';

// Local web mode's HTTP door over real HTTP on 127.0.0.1, with a stand-in app API that
// answers every method (what is tested here is what reaches it, and what does not).

const TOKEN = 'test-token-0123456789';

function request(port: number, options: { method?: string; path?: string; headers?: Record<string, string>; body?: string; declaredLength?: number }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.declaredLength !== undefined) headers['content-length'] = options.declaredLength;
    const outgoing = http.request({ host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/api/info', headers }, (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    if (options.declaredLength !== undefined) {
      // Declare a huge body and send none of it: the answer must not wait for it.
      outgoing.flushHeaders();
      return;
    }
    outgoing.end(options.body);
  });
}

describe('local web mode', () => {
  let directory: string;
  let server: RunningWebServer;
  const calls: string[] = [];

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-'));
    fs.writeFileSync(path.join(directory, 'index.html'), '<!doctype html><title>probe</title>');
    server = await startWebServer({
      rendererDirectory: directory,
      port: 0,
      token: TOKEN,
      api: async (method) => {
        calls.push(method);
        return { method };
      },
    });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

  it('answers the app’s own page, with or without an Origin header', async () => {
    expect((await request(server.port, { headers: auth, body: '{}' })).status).toBe(200);
    expect((await request(server.port, { headers: { ...auth, origin: `http://127.0.0.1:${server.port}` }, body: '{}' })).status).toBe(200);
    expect(JSON.parse((await request(server.port, { headers: { ...auth, 'content-type': 'application/json; charset=utf-8' }, body: '{}' })).body)).toEqual({ ok: true, result: { method: 'info' } });
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
});
