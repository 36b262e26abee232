/**
 * The Service view on PostgreSQL, end to end: a real PostgreSQL server (the test harness), the
 * app in local web mode, Chromium. The database URL is set in Settings ("Service database") and
 * comes back with its password masked; the Service view says it is on PostgreSQL, a tenant
 * created there is in that database (a second store on it sees it), and a URL that is not
 * PostgreSQL is refused beside the field. axe checks both views.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { tenants } from '../src-main/operations/service-admin';
import { openServiceStore } from '../src-main/operations/service-store';
import { openWorkspace } from '../src-main/operations/workspace';
import { startTestPostgres, type TestPostgres } from '../src-main/test-support/postgres';
import { axeAcrossWidths } from './a11y';
import { REPO_ROOT, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const PASSWORD = 'e2e-secret-password';

describe('the Service view on PostgreSQL', () => {
  let postgres: TestPostgres;
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  let url = '';
  const failures: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [postgres, app, browser] = await Promise.all([startTestPostgres(), startWebApp(), launchBrowser()]);
    url = (await postgres.createDatabase('evroom_app')).replace(
      'postgres://postgres@',
      `postgres://postgres:${PASSWORD}@`,
    );
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
    await postgres?.stop();
  });

  it('refuses a URL that is not PostgreSQL beside the field, then saves one with its password masked', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const field = page.getByRole('textbox', { name: 'Service database' });
    await field.fill('mysql://root@127.0.0.1/evroom');
    await page.locator('#service-database-error').filter({ hasText: 'postgres:// or postgresql://' }).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');

    await field.fill(url);
    await page.getByRole('button', { name: 'Save service database' }).click();
    await page.getByText('Service database saved.').waitFor();
    const masked = url.replace(`:${PASSWORD}@`, ':•••@');
    expect(await field.inputValue()).toBe(masked);
    expect(await page.content()).not.toContain(PASSWORD);

    const messages = await axeAcrossWidths(page, 'settings with a service database');
    expect(messages.join('\n')).toBe('');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows the Service view on PostgreSQL and creates a tenant in that database', async () => {
    await page.getByRole('link', { name: 'Service' }).click();
    await page.getByRole('heading', { name: 'Service', exact: true }).waitFor();
    const store = page.getByTestId('service-store');
    await store.waitFor();
    expect(await store.getAttribute('data-engine')).toBe('postgres');
    const where = url.replace(/^postgres:\/\/[^@]*@/, '');
    expect(await store.textContent()).toContain(`PostgreSQL ${where}`);
    await page.getByText('No tenants yet', { exact: true }).waitFor();

    await page.getByLabel('Tenant id').fill('acme');
    await page.getByLabel('Tier').selectOption('pro');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    const row = page.locator('[data-testid="tenants-table"] tr[data-tenant="acme"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('0 of 50,000');

    // The tenant is in PostgreSQL: another store on the same database sees it.
    const otherHome = mkdtempSync(join(tmpdir(), 'evroom-e2e-pg-other-'));
    const other = openWorkspace(otherHome);
    const second = await openServiceStore(other, url);
    try {
      expect((await tenants(second)).map((tenant) => tenant.id)).toEqual(['acme']);
    } finally {
      await second.close();
      other.close();
      rmSync(otherHome, { recursive: true, force: true });
    }

    const messages = await axeAcrossWidths(page, 'service on postgresql');
    expect(messages.join('\n')).toBe('');
    // The status (naming the store) and the tenant at the top of a taller window.
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page
      .getByRole('heading', { name: 'Service', exact: true })
      .evaluate((heading) => (heading as unknown as { scrollIntoView(): void }).scrollIntoView());
    await page.screenshot({ path: join(SCREENSHOTS, 'service-postgres.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.content()).not.toContain(PASSWORD);
    expect(failures).toEqual([]);
  });
});
