import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalWebMode, type RunningWebMode } from './web-mode';
import { CONTENT_SECURITY_POLICY } from './window-options';

// Local web mode as the shell composes it, over real HTTP on 127.0.0.1: the pages and the API
// are served under the window's policy, which the shell owns and hands to the web door.
describe('local web mode, composed by the shell', () => {
  let directory: string;
  let web: RunningWebMode;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-web-mode-'));
    const renderer = path.join(directory, 'renderer');
    fs.mkdirSync(renderer);
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>probe</title>');
    web = await startLocalWebMode({
      dataDirectory: path.join(directory, 'home'),
      rendererDirectory: renderer,
      port: 0,
    });
  });
  afterAll(async () => {
    await web.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('serves pages, API answers and refusals under the window’s Content-Security-Policy', async () => {
    const token = /#token=([A-Za-z0-9_-]+)/.exec(web.url)?.[1] ?? '';
    const origin = `http://127.0.0.1:${web.port}`;
    const page = await fetch(`${origin}/`);
    const call = await fetch(`${origin}/api/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    });
    const refused = await fetch(`${origin}/api/info`, { method: 'POST', body: '{}' });
    expect([page.status, call.status, refused.status]).toEqual([200, 200, 401]);
    for (const response of [page, call, refused]) {
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
  });
});
