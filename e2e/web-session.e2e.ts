/**
 * Web mode keeps its session for the tabs of one browser: the first page trades the printed
 * address's token for an HttpOnly cookie and takes the token out of the address bar; a second tab
 * at a bookmarked filter, and a middle-clicked link, work without the token; a browser without
 * the cookie (another context) is told it has no session, in place of the view, not that its
 * filters are wrong; and that message is axe-clean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { axeAcrossWidths } from './a11y';
import { callApi, launchBrowser, startWebApp, type RunningApp } from './harness';

const VIEWPORT = { width: 1280, height: 800 };
const NO_SESSION = 'This tab has no session with the app: open the address the app printed (evroom app --web)';

describe('web mode session for new tabs', () => {
  let app: RunningApp;
  let browser: Browser;
  let origin: string;
  /** A bookmarked filter: the receipts whose signed content does not match. */
  let bookmark: string;

  beforeAll(async () => {
    app = await startWebApp();
    browser = await launchBrowser();
    origin = new URL(app.url).origin;
    bookmark = `${origin}/#/receipts?status=MISMATCH`;
    await callApi(app, 'samples.load');
    // The sample import runs as a job: wait until the ledger holds MISMATCH receipts.
    const deadline = Date.now() + 60_000;
    while ((await callApi<{ count: number }>(app, 'receipts.count', { filters: { status: 'MISMATCH' } })).count === 0) {
      if (Date.now() > deadline) throw new Error('the samples did not import in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('opens a bookmarked filter and a middle-clicked link in new tabs of the same browser without the token', async () => {
    const context: BrowserContext = await browser.newContext({ viewport: VIEWPORT });
    const first = await context.newPage();
    await first.goto(app.url);
    await first.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    // The token left the address bar (and so any bookmark of it), and no script can read the cookie.
    expect(first.url()).toBe(`${origin}/`);
    expect(
      await first.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
    ).toBe('');
    const cookies = await context.cookies(origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/', expires: -1 });
    expect(app.url).not.toContain(cookies[0]!.value);

    const second = await context.newPage();
    await second.goto(bookmark);
    await second.getByRole('heading', { name: 'Receipts', level: 1 }).waitFor();
    await second.getByRole('row').nth(1).waitFor();
    const statuses = await second.getByRole('row').allTextContents();
    expect(statuses.length).toBeGreaterThan(1);
    for (const row of statuses.slice(1)) expect(row).toContain('MISMATCH');
    expect(await second.getByTestId('no-session').count()).toBe(0);
    expect(second.url()).toBe(bookmark);

    // A link opened in a new tab (middle click) is a new page of the same browser, too.
    const opened = context.waitForEvent('page');
    await second.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Trust store' }).click({
      button: 'middle',
    });
    const third = await opened;
    await third.getByRole('heading', { name: 'Trust store', level: 1 }).waitFor();
    expect(await third.getByTestId('no-session').count()).toBe(0);
    await context.close();
  });

  it('keeps the route of an address that carries the token after it, and drops only the token', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    const token = /token=([A-Za-z0-9_-]+)/.exec(app.url)![1]!;
    await page.goto(`${bookmark}&token=${token}`);
    await page.getByRole('heading', { name: 'Receipts', level: 1 }).waitFor();
    await page.getByRole('row').nth(1).waitFor();
    expect(page.url()).toBe(bookmark);
    await context.close();
  });

  it('tells a browser without the session what to do, in place of the view, not to check its filters; axe-clean', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    await page.goto(bookmark);
    const notice = page.getByTestId('no-session');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(NO_SESSION);
    await page.getByRole('heading', { name: 'No session with the app', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { name: 'Receipts', level: 1 }).count()).toBe(0);
    expect(await page.getByText(/check the filters/i).count()).toBe(0);
    expect(await page.getByTestId('connection').textContent()).toBe('not connected: no session');
    expect((await axeAcrossWidths(page, 'no session')).join('\n')).toBe('');

    // A token of an earlier run (or a wrong one) gives the same message, and no cookie.
    const stale = await context.newPage();
    await stale.goto(`${origin}/#token=${'A'.repeat(43)}`);
    await stale.getByTestId('no-session').waitFor();
    expect(stale.url()).toBe(`${origin}/`);
    expect(await context.cookies(origin)).toEqual([]);
    await context.close();
  });
});
