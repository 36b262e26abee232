import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppApiResults } from '../../src-shared/api/contract';
import { b64uDecode } from '../../src-shared/crypto';
import { createAppApi, type AppApiDispatcher } from './app-api';

// The Reports view's calls, through the one app API implementation, over a real data folder.
describe('app API: reports', () => {
  let home: string;
  let api: AppApiDispatcher;
  const call = <M extends keyof AppApiResults>(method: M, input?: unknown) =>
    api(method, input) as Promise<AppApiResults[M]>;

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'evroom-reports-api-'));
    api = createAppApi({ mode: 'web', dataDirectory: home });
    await call('samples.load');
  });

  afterEach(() => {
    api.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('makes, lists, renders each form and diffs reports', async () => {
    const all = await call('reports.create', {});
    const passing = await call('reports.create', { filters: { status: 'PASS' } });
    expect(all.receipts).toBeGreaterThan(passing.receipts);
    expect(passing.scope).toEqual({ filters: { status: 'PASS' } });
    expect((await call('reports.list')).map((report) => report.report_id)).toEqual([passing.report_id, all.report_id]);
    const json = await call('reports.get', { report_id: all.report_id, form: 'json' });
    expect(JSON.parse(new TextDecoder().decode(b64uDecode(json.data))).payload_sha256).toBe(all.payload_sha256);
    const html = await call('reports.get', { report_id: all.report_id, form: 'html' });
    expect(new TextDecoder().decode(b64uDecode(html.data))).toContain(`payload_sha256 ${all.payload_sha256}`);
    const pdf = await call('reports.get', { report_id: all.report_id, form: 'pdf' });
    expect(new TextDecoder().decode(b64uDecode(pdf.data).subarray(0, 5))).toBe('%PDF-');
    expect(pdf).toMatchObject({ name: `${all.report_id}.pdf`, mime: 'application/pdf' });
    const diff = await call('reports.diff', { old_report: all.report_id, new_report: passing.report_id });
    expect(diff.removed).toHaveLength(all.receipts - passing.receipts);
    expect(diff.added).toEqual([]);
    // The scopes differ: the diff says so first.
    expect(diff.scope_warning).toBe(
      'Warning: the two reports cover different scopes (old: no filters; new: status PASS): receipts added or removed may come from the different filters, not from changes in the ledger.',
    );
    const same = await call('reports.diff', { old_report: all.report_id, new_report: all.report_id });
    expect(same.scope_warning).toBeNull();
  });

  it('refuses a scope with no receipts unless allow_empty, and marks that report EMPTY', async () => {
    await expect(api('reports.create', { filters: { format: 'no-such-format' } })).rejects.toMatchObject({
      code: 'empty_report',
      message: expect.stringContaining("No receipt is in the report's scope (format no-such-format)"),
    });
    expect(await call('reports.list')).toEqual([]);
    await expect(api('reports.create', { allow_empty: 'yes' })).rejects.toMatchObject({ code: 'invalid_request' });
    const empty = await call('reports.create', { filters: { format: 'no-such-format' }, allow_empty: true });
    expect(empty.receipts).toBe(0);
    const html = await call('reports.get', { report_id: empty.report_id, form: 'html' });
    expect(new TextDecoder().decode(b64uDecode(html.data))).toContain('EMPTY: no receipts in scope.');
  });

  it('refuses bad input with the envelope and keeps nothing', async () => {
    await expect(api('reports.get', { report_id: '../ledger', form: 'json' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(
      api('reports.get', { report_id: 'rpt_01M83HVVZQCN9TKQP6G98G9743', form: 'json' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      api('reports.get', { report_id: 'rpt_01M83HVVZQCN9TKQP6G98G9743', form: 'docx' }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('reports.create', { filters: { bundle: 1 } })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('not a report scope'),
    });
    await expect(api('reports.create', { as_of: 'yesterday' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(api('reports.create', { as_of: '2999-01-01T00:00:00Z' })).rejects.toMatchObject({
      code: 'invalid_as_of',
    });
    await expect(api('reports.diff', { old_report: 'x', new_report: 'y' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await call('reports.list')).toEqual([]);
    expect(readdirSync(home)).not.toContain('reports');
  });
});
