import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { artifactPath, launchBrowser, startWebApp, type RunningApp } from './harness';

describe('local web mode', () => {
  let app: RunningApp;
  let browser: Browser;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('serves the app, which reaches the app API with the session token', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    const response = await page.goto(app.url);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('local web mode').waitFor();
    expect(await page.getByTestId('connection').textContent()).toMatch(/^v\d+\.\d+\.\d+ · local web mode$/);
    // The token leaves the address bar once read.
    expect(page.url()).not.toContain('token=');
    await page.screenshot({ path: artifactPath('smoke.png') });
    expect(failures).toEqual([]);
  });

  it('refuses app API calls without the token', async () => {
    const origin = new URL(app.url).origin;
    const response = await fetch(`${origin}/api/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { code: string } };
    expect(body.error.code).toBe('unauthorized');
  });
});
