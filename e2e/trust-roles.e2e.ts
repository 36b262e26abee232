/**
 * Roles in the Trust store view, end to end: the pin form checks the roles as they are typed,
 * the confirmation says what they mean, the pinned key is listed with its roles, and the trust
 * store (read through the app API, as the renderer does) keeps them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { callApi, launchBrowser, startWebApp, type RunningApp } from './harness';

// RFC 8032 section 7.1, test 1: a real Ed25519 public key.
const PUBLIC_KEY = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const KEY_ID = 'did:svc:acme:roles';

describe('trust store roles', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];

  beforeAll(async () => {
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    await page.goto(app.url);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('pins a key for roles from the form and lists it with them', async () => {
    await page.getByRole('link', { name: 'Trust store' }).click();
    await page.getByRole('heading', { name: 'Trust store' }).waitFor();
    await page.getByLabel('Key id').fill(KEY_ID);
    await page.getByLabel('Public key (base64url)').fill(PUBLIC_KEY);
    const roles = page.getByLabel('Roles (optional)');
    // Checked as typed: not a role, then a role twice.
    await roles.fill('service, signer');
    await page.getByLabel('Label (optional)').focus();
    await page.locator('#pin-roles-error').getByText('“signer” is not a role').waitFor();
    await roles.fill('service,service');
    await page.locator('#pin-roles-error').getByText('service is given twice.').waitFor();
    await roles.fill('service, requester');
    await page.getByRole('button', { name: 'Pin key…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      'service, requester only: in another role its signatures are not trusted',
    );
    await dialog.getByRole('button', { name: 'Pin key' }).click();
    await page.getByTestId('trust-done').waitFor();
    const row = page.locator(`[data-testid="pinned-table"] tr[data-key-id="${KEY_ID}"]`);
    await row.waitFor();
    // Listed in role order, whatever order was typed.
    expect(await row.locator('.key-roles').textContent()).toBe('roles: requester, service only');
    const store = await callApi<{ pinned: { key_id: string; roles?: string[] }[] }>(app, 'trust.list');
    expect(store.pinned).toEqual([expect.objectContaining({ key_id: KEY_ID, roles: ['requester', 'service'] })]);
    expect(failures).toEqual([]);
  });
  it('pins a key under a did:hive id from the form, after refusing an id with a space with its reason', async () => {
    const hive = 'did:hive:typed-demo-e2e';
    await page.getByRole('link', { name: 'Trust store' }).click();
    await page.getByRole('heading', { name: 'Trust store' }).waitFor();
    const keyId = page.getByLabel('Key id');
    await keyId.fill('did:hive:typed demo');
    await page.getByLabel('Public key (base64url)').fill(PUBLIC_KEY);
    await page.getByLabel('Label (optional)').focus();
    await page.locator('#pin-key_id-error').getByText('must not contain spaces (character 15 is a space)').waitFor();
    await keyId.fill('did::typed-demo');
    await page.locator('#pin-key_id-error').getByText("The DID's method is empty").waitFor();
    await keyId.fill(hive);
    await page.getByLabel('Label (optional)').fill('Typed signer (e2e)');
    await page.locator('#pin-key_id-error').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Pin key…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Pin key' }).click();
    await page.getByTestId('trust-done').waitFor();
    await page.locator(`[data-testid="pinned-table"] tr[data-key-id="${hive}"]`).waitFor();
    const store = await callApi<{ pinned: { key_id: string; label?: string }[] }>(app, 'trust.list');
    expect(store.pinned).toContainEqual(expect.objectContaining({ key_id: hive, label: 'Typed signer (e2e)' }));
    expect(failures).toEqual([]);
  });
});
