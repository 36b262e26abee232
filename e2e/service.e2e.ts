/**
 * The Service view, end to end: in local web mode the HTTP service is started from the view, a
 * tenant is created and a key issued through the UI (the key read from the dialog that shows it
 * once), a receipt issued over real HTTP with that key appears in the Receipts view with its
 * source, the last-requests table shows the 201, and after the key is revoked the next request
 * is refused with 401.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const RECEIPT_BODY = JSON.stringify({
  agent_did: 'did:web:agent.example.com',
  input: 'hello',
  content_type: 'text/plain',
});

async function screenshot(page: Page, name: string, height = 800): Promise<void> {
  // A taller window for a view whose panels do not fit in 800 pixels (a full-page capture would
  // cut the fixed sidebar short).
  await page.setViewportSize({ width: 1280, height });
  await page.screenshot({ path: join(SCREENSHOTS, name) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('the Service view', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  let serviceUrl = '';
  let key = '';

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  function issueReceipt(bearer: string): Promise<Response> {
    return fetch(`${serviceUrl}/tenants/acme/receipts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: RECEIPT_BODY,
    });
  }

  it('starts the service from the view and shows its URL on 127.0.0.1', async () => {
    await page.getByRole('link', { name: 'Service' }).click();
    await page.getByRole('heading', { name: 'Service', exact: true }).waitFor();
    await page.locator('[data-testid="service-state"][data-running="false"]').waitFor();
    await page.getByText('No tenants yet', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Start service' }).click();
    await page.locator('[data-testid="service-state"][data-running="true"]').waitFor();
    serviceUrl = (await page.getByTestId('service-url').textContent()) ?? '';
    expect(serviceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serviceUrl).not.toBe(new URL(app.url).origin);
    expect((await fetch(`${serviceUrl}/v1/keys`)).status).toBe(200);
    await page.getByRole('button', { name: 'Stop service' }).waitFor();
  });

  it('creates a tenant, shows the API’s refusal beside the field, and issues a key shown once', async () => {
    await page.getByLabel('Tenant id').fill('acme');
    await page.getByLabel('Tier').selectOption('pro');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    const row = page.locator('[data-testid="tenants-table"] tr[data-tenant="acme"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('0 of 50,000');

    // The same id again: the API's conflict, named by its detail's path, beside the id field.
    const failuresBefore = failures.length;
    await page.getByLabel('Tenant id').fill('acme');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.locator('#tenant-id-error').filter({ hasText: 'The tenant acme exists already. (conflict)' }).waitFor();
    // The browser logs the refused call's HTTP status; that one is expected.
    expect(failures.splice(failuresBefore)).toEqual([expect.stringContaining('status of 409')]);
    expect(await page.getByLabel('Tenant id').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Tenant id').fill('');

    expect(await page.getByLabel('Tenant', { exact: true }).inputValue()).toBe('acme');
    await page.getByRole('button', { name: 'Issue key…' }).click();
    const dialog = page.getByRole('dialog', { name: 'API key for acme' });
    await dialog.waitFor();
    await dialog.getByText('This key is shown once.').waitFor();
    key = ((await dialog.getByTestId('issued-key').textContent()) ?? '').trim();
    expect(key).toMatch(/^svc_pro_[A-Za-z0-9_-]{32}$/);
    await screenshot(page, 'service-key-once.png');
    await dialog.getByRole('button', { name: 'I have stored it' }).click();
    await dialog.waitFor({ state: 'detached' });

    // Listed by its prefix only: the key itself is not on the page any more.
    const keyRow = page.locator(`[data-testid="apikeys-table"] tr[data-prefix="${key.slice(0, 16)}"]`);
    await keyRow.waitFor();
    expect(await keyRow.getAttribute('data-state')).toBe('active');
    expect(await page.content()).not.toContain(key);
  });

  it('issues a receipt with the key over HTTP; the last requests show the 201 and the quota counts it', async () => {
    const created = await issueReceipt(key);
    expect(created.status).toBe(201);
    // The view refreshes every few seconds while the service runs.
    const requests = page.getByTestId('service-requests');
    await requests.locator('tr[data-status="201"]').waitFor({ timeout: 15_000 });
    expect(await requests.locator('tr[data-status="201"]').first().textContent()).toContain('/tenants/:id/receipts');
    await page
      .locator('[data-testid="tenants-table"] tr[data-tenant="acme"]')
      .filter({ hasText: '1 of 50,000' })
      .waitFor({ timeout: 15_000 });
    await screenshot(page, 'service.png', 1120);
  });

  it('shows the receipt in the Receipts view with the service as its source', async () => {
    await page.getByRole('link', { name: 'Receipts' }).click();
    await page
      .getByTestId('receipts-total')
      .filter({ hasText: /^1 receipt$/ })
      .waitFor();
    await page.locator('.receipts-row').first().dblclick();
    await page.getByRole('heading', { name: 'Verification' }).waitFor();
    const source = page.locator('.detail-source[data-source-kind="service"]');
    await source.waitFor();
    expect(await source.locator('.detail-source-ref').textContent()).toBe('tenant:acme');
  });

  it('revokes the key after a confirmation; the next request is refused with 401', async () => {
    expect(failures).toEqual([]);
    await page.getByRole('link', { name: 'Service' }).click();
    const keyRow = page.locator(`[data-testid="apikeys-table"] tr[data-prefix="${key.slice(0, 16)}"]`);
    await keyRow.getByRole('button', { name: 'Revoke…' }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke ${key.slice(0, 16)}…?` });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page
      .locator(`[data-testid="apikeys-table"] tr[data-prefix="${key.slice(0, 16)}"][data-state="revoked"]`)
      .waitFor();
    await page.getByTestId('service-done').filter({ hasText: 'Requests with it are now refused (401).' }).waitFor();

    expect((await issueReceipt(key)).status).toBe(401);
    await page.getByTestId('service-requests').locator('tr[data-status="401"]').waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Stop service' }).click();
    await page.locator('[data-testid="service-state"][data-running="false"]').waitFor();
    await expect(fetch(`${serviceUrl}/v1/keys`)).rejects.toThrow();
    // The last run's requests stay on the page after the stop.
    expect(await page.getByTestId('service-requests').locator('tr[data-status="201"]').count()).toBe(1);
    expect(failures).toEqual([]);
  });
});
