/**
 * Completeness in an audit report, end to end: the service issues a tenant's receipts into its
 * log and serves a period's evidence; an auditor's workstation imports it and makes a report,
 * which states the period complete in the tenant's log, verifies, and shows it in its HTML form
 * (docs/logs.md, "Completeness in audit reports"; docs/protocol.md section 13).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETENESS_SECTION, renderReportHtml, verifyReportHtml } from '../../src-shared/formats/report';
import { importEvidence } from '../operations/evidence';
import { createReport, readKeptReport, readVerifiedReport } from '../operations/report';
import { openWorkspace, workspaceVerifyContext } from '../operations/workspace';
import { startLoggedService, type LoggedService } from '../test-support/logged-service';
import { stopTestStores } from '../test-support/service-store';

const LOG_NAME = 'reports.example.com/log';

describe('completeness in a report of a served bundle', () => {
  let served: LoggedService;
  let directory: string;

  beforeAll(async () => {
    served = await startLoggedService({
      logName: LOG_NAME,
      start: '2026-11-03T09:00:00Z',
      prefix: 'evroom-report-log-',
    });
    directory = served.directory;
    for (let second = 1; second <= 4; second += 1) await served.issueAt(`2026-11-03T09:00:0${second}Z`);
  });
  afterAll(async () => {
    await served.close();
    await stopTestStores();
  });

  it('states the period complete at the log’s size, signed, and shows it in the HTML', async () => {
    const response = await served.get('evidence?since=2026-11-03T09:00:02Z&until=2026-11-03T09:00:04Z');
    expect(response.status).toBe(200);
    const file = path.join(directory, 'period.zip');
    fs.writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const auditor = openWorkspace(path.join(directory, 'auditor'));
    try {
      const imported = await importEvidence(auditor, file, { workers: 1, fileName: 'period.zip' });
      expect(imported.findings).toEqual([]);
      const made = await createReport(auditor, {});
      const { report, verification } = readVerifiedReport(
        readKeptReport(auditor, made.report_id),
        workspaceVerifyContext(auditor),
        'kept',
      );
      expect(verification.status).toBe('PASS');
      expect(report.completeness).toEqual([
        {
          bundle_sha256: imported.bundle.sha256,
          tenant_id: 'acme',
          origin: `${LOG_NAME}/tenants/acme`,
          period: { since: '2026-11-03T09:00:02Z', until: '2026-11-03T09:00:04Z' },
          status: 'complete',
          tree_size: 4,
          first_index: 1,
          last_index: 2,
          missing_count: 0,
          missing: [],
          stale: false,
          signer: 'advertised',
          // The only checkpoint this workstation has seen of the log: nothing disagrees with it.
          consistency: 'consistent',
          sentence: 'complete for 2026-11-03T09:00:02Z to 2026-11-03T09:00:04Z at size 4',
        },
      ]);
      const html = Array.from(renderReportHtml(report)).join('');
      expect(html).toContain(`<section id="completeness"><h2>${COMPLETENESS_SECTION[1]}</h2>`);
      expect(html).toContain('<td>period.zip</td><td>acme</td><td>2026-11-03T09:00:02Z to 2026-11-03T09:00:04Z</td>');
      expect(verifyReportHtml(html, workspaceVerifyContext(auditor)).status).toBe('PASS');
    } finally {
      auditor.close();
    }
  });
});
