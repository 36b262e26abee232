/**
 * Buying an API key from the Service view, end to end (PROTOCOL section 13, docs/payments.md):
 * in local web mode the service is started from the view on the embedded chain (a real anvil with
 * the real token contract), a pro key is bought with an e-mail contact through the view's form
 * (a development account's test tokens, the memo after the transfer's call data), the service's
 * watcher records the payment and issues the key, and the row reaches `issued` with its delivery
 * `delivered` to the outbox. The key is in the outbox's .eml only: the page and every app API
 * answer lack it, and it works on the service. A scale year bought for a did:key is sealed for
 * pickup and opens only with that DID's seed. axe checks the view with the payments in it.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ed25519 } from '@noble/curves/ed25519.js';
import type { PaymentView } from '../src-shared/api/payments';
import { didKeyFromEd25519 } from '../src-shared/crypto/did-key';
import { openSealedApiKey } from '../src-shared/payments/sealed-key';
import { axeAcrossWidths } from './a11y';
import { REPO_ROOT, callApi, launchBrowser, startWebApp, type RunningApp } from './harness';

const SCREENSHOTS = join(REPO_ROOT, 'docs', 'screenshots');
const CONTACT = 'buyer@example.com';
const RECEIPT_BODY = JSON.stringify({
  agent_did: 'did:web:agent.example.com',
  input: 'hello',
  content_type: 'text/plain',
});

describe('buying an API key in the Service view', () => {
  let app: RunningApp;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  /** Every app API answer the page received, as text. */
  const answers: string[] = [];
  let dataDirectory = '';
  let serviceUrl = '';
  let txHash = '';
  let key = '';

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [app, browser] = await Promise.all([startWebApp(), launchBrowser()]);
    dataDirectory = (await callApi<{ dataDirectory: string }>(app, 'info')).dataDirectory;
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/api/'))
        void response.text().then(
          (text) => answers.push(text),
          () => undefined,
        );
    });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('explains how keys are bought while there are no payments, and offers the form once the service runs on the embedded chain', async () => {
    await page.getByRole('link', { name: 'Service' }).click();
    await page.getByRole('heading', { name: 'Service', exact: true }).waitFor();
    await page.getByText('No payments yet', { exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Buy an API key (development chain)' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Start service' }).click();
    await page.locator('[data-testid="service-state"][data-running="true"]').waitFor({ timeout: 60_000 });
    serviceUrl = (await page.getByTestId('service-url').textContent()) ?? '';
    expect(serviceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await page.getByRole('heading', { name: 'Buy an API key (development chain)' }).waitFor();
    expect(await page.getByTestId('payments-test-tokens').textContent()).toContain(
      'test tokens on the local development chain',
    );
    const chain = page.getByTestId('payments-chain');
    expect(await chain.textContent()).toContain('anvil-local');
    // The chain's token and treasury, as GET /pricing lists them.
    const pricing = (await (await fetch(`${serviceUrl}/pricing`)).json()) as {
      chains: { network: string; token: string; treasury: string }[];
    };
    const local = pricing.chains.find((entry) => entry.network === 'anvil-local');
    expect(local).toBeDefined();
    expect(await chain.locator(`[data-value="${local!.token}"]`).count()).toBe(1);
    expect(await chain.locator(`[data-value="${local!.treasury}"]`).count()).toBe(1);
  });

  it('refuses a contact the memo cannot carry, beside the field, and pays nothing', async () => {
    const failuresBefore = failures.length;
    await page.getByLabel('Contact', { exact: true }).fill('not an address');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.locator('#buy-contact-error').filter({ hasText: 'must be an e-mail address, a domain name' }).waitFor();
    expect(await page.getByLabel('Contact', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    // The browser logs the refused call's HTTP status; that one is expected.
    expect(failures.splice(failuresBefore)).toEqual([expect.stringContaining('status of 400')]);
    expect(await callApi<PaymentView[]>(app, 'service.payments')).toEqual([]);
  });

  it('buys a pro key with an e-mail contact; the row reaches issued, delivered to the outbox', async () => {
    await page.getByLabel('Plan', { exact: true }).selectOption('pro');
    await page.getByLabel('Contact', { exact: true }).fill(CONTACT);
    await page.getByLabel('Development account', { exact: true }).selectOption('1');
    await page.getByRole('button', { name: 'Pay 99.000000 test tokens' }).click();

    const sent = page.getByTestId('payments-sent-tx');
    await sent.waitFor({ timeout: 30_000 });
    txHash = (await sent.getAttribute('data-value')) ?? '';
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The watcher sees the transfer, records it, waits for its confirmation and issues the key;
    // the delivery worker writes the message to the outbox. The view refreshes every few seconds.
    const row = page.locator(`[data-testid="payments-table"] tr[data-tx="${txHash}"]`);
    await row.waitFor({ timeout: 60_000 });
    await page
      .locator(`[data-testid="payments-table"] tr[data-tx="${txHash}"][data-state="issued"][data-delivery="delivered"]`)
      .waitFor({ timeout: 60_000 });
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('issued');
    expect(text).toContain('pro, a month');
    expect(text).toContain('99.000000 paid');
    expect(text).toContain(CONTACT);
    expect(text).toContain('outbox folder');
    expect(text).toContain('delivered');
    expect(text).toMatch(/svc_pro_[A-Za-z0-9_-]{8}…/);

    // The form says where the key went: the outbox folder's message, not the key.
    const where = page.getByTestId('payments-sent-where');
    await where.filter({ hasText: `${txHash}.eml` }).waitFor({ timeout: 15_000 });
    expect(await where.textContent()).toContain('It is not shown in the app.');

    const [payment] = await callApi<PaymentView[]>(app, 'service.payments');
    expect(payment).toMatchObject({
      tx_hash: txHash,
      network: 'anvil-local',
      state: 'issued',
      tier: 'pro',
      term: 'month',
      contact: CONTACT,
      amount: '99000000',
      delivery: { channel: 'outbox', state: 'delivered', to: CONTACT },
    });
    expect(payment!.expires_at).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
  });

  it('delivers the key only to the outbox: the .eml holds it, the page and every app API answer lack it, and it works', async () => {
    const eml = join(dataDirectory, 'outbox', `${txHash}.eml`);
    expect(existsSync(eml), eml).toBe(true);
    expect(statSync(eml).mode & 0o777).toBe(0o600);
    const message = readFileSync(eml, 'utf8');
    expect(message).toMatch(/^To: .*buyer@example\.com/im);
    key = /svc_pro_[A-Za-z0-9_-]{32}/.exec(message)?.[0] ?? '';
    expect(key).not.toBe('');

    const [payment] = await callApi<PaymentView[]>(app, 'service.payments');
    expect(key.startsWith(payment!.key_prefix!)).toBe(true);

    // The page, as rendered and as its text, never holds the key.
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('body').innerText()).not.toContain(key);
    // Nor any answer of the app API: those the page got, and every read method asked now.
    for (const method of ['service.payments', 'service.status', 'apikeys.list', 'tenants.list', 'overview', 'info'])
      answers.push(JSON.stringify(await callApi(app, method)));
    expect(answers.length).toBeGreaterThan(6);
    for (const answer of answers) expect(answer).not.toContain(key);

    // The key is a working key of the tenant made for the contact.
    const issued = await fetch(`${serviceUrl}/tenants/${payment!.tenant_id!}/receipts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: RECEIPT_BODY,
    });
    expect(issued.status).toBe(201);
  });

  it('buys a scale year for a did:key: sealed for pickup, opened only with that DID’s seed, never on the page', async () => {
    const seed = new Uint8Array(32).fill(7);
    const did = didKeyFromEd25519(ed25519.getPublicKey(seed));
    await page.getByLabel('Plan', { exact: true }).selectOption('scale');
    await page.getByLabel('Contact', { exact: true }).fill(did);
    await page.getByLabel('Issuer DID (optional)', { exact: true }).fill('did:web:agent.example.com');
    await page.getByLabel('Pay for a year', { exact: true }).check();
    await page.getByLabel('Development account', { exact: true }).selectOption('2');
    await page.getByRole('button', { name: 'Pay 4990.000000 test tokens' }).click();
    const sent = page.getByTestId('payments-sent-tx');
    await sent.filter({ hasNotText: txHash }).waitFor({ timeout: 30_000 });
    const sealedTx = (await sent.getAttribute('data-value')) ?? '';
    expect(sealedTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sealedTx).not.toBe(txHash);

    const row = page.locator(
      `[data-testid="payments-table"] tr[data-tx="${sealedTx}"][data-state="issued"][data-delivery="delivered"]`,
    );
    await row.waitFor({ timeout: 60_000 });
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('scale, a year');
    expect(text).toContain('4990.000000 paid');
    expect(text).toContain('sealed for pickup');
    // Newest first.
    expect(await page.locator('[data-testid="payments-table"] tbody tr').first().getAttribute('data-tx')).toBe(
      sealedTx,
    );
    // The form says where it went: sealed to the DID, fetched by transaction hash.
    const where = page.getByTestId('payments-sent-where');
    await where.filter({ hasText: `/v1/apikeys/pickup/${sealedTx}` }).waitFor({ timeout: 15_000 });
    expect(await where.textContent()).toContain(`sealed to ${did}`);

    const pickup = await fetch(`${serviceUrl}/v1/apikeys/pickup/${sealedTx}`);
    expect(pickup.status).toBe(200);
    const sealedKey = openSealedApiKey(await pickup.json(), seed);
    expect(sealedKey).toMatch(/^svc_scale_[A-Za-z0-9_-]{32}$/);
    expect(await page.content()).not.toContain(sealedKey);
    for (const method of ['service.payments', 'service.status', 'apikeys.list'])
      expect(JSON.stringify(await callApi(app, method))).not.toContain(sealedKey);
    for (const answer of answers) expect(answer).not.toContain(sealedKey);
    // No message in the outbox for a sealed key.
    expect(existsSync(join(dataDirectory, 'outbox', `${sealedTx}.eml`))).toBe(false);
  });

  it('passes axe at every width with a payment listed, and takes the user guide’s picture', async () => {
    expect(key).toMatch(/^svc_pro_/);
    const messages = await axeAcrossWidths(page, 'service with payments');
    expect(messages.join('\n')).toBe('');
    // The Payments panel at the top of the window (it sits below the tenants and keys).
    await page.setViewportSize({ width: 1280, height: 900 });
    await page
      .getByRole('heading', { name: /^Payments/ })
      .evaluate((heading) => (heading as unknown as { scrollIntoView(): void }).scrollIntoView());
    await page.screenshot({ path: join(SCREENSHOTS, 'service-payments.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await page.content()).not.toContain(key);
    expect(failures).toEqual([]);
  });
});
