/**
 * Completeness in an audit report, end to end: the service issues a tenant's receipts into its
 * log and serves a period's evidence; an auditor's workstation imports it and makes a report,
 * which states the period complete in the tenant's log, verifies, and shows it in its HTML form
 * (docs/logs.md, "Completeness in audit reports"; docs/protocol.md section 13).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETENESS_SECTION, renderReportHtml, verifyReportHtml } from '../../src-shared/formats/report';
import { importEvidence } from '../operations/evidence';
import { createReport, readKeptReport, readVerifiedReport } from '../operations/report';
import { createTenant, issueApiKey } from '../operations/service-admin';
import { loadServiceKeys } from '../operations/service-keys';
import { openWorkspace, workspaceVerifyContext, type Workspace } from '../operations/workspace';
import { buildService, type Service } from './service';

const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Hello, report.', content_type: 'text/plain' };
const LOG_NAME = 'reports.example.com/log';
const clock = { at: Date.parse('2026-11-03T09:00:00Z') };

describe('completeness in a report of a served bundle', () => {
  let directory: string;
  let serviceWorkspace: Workspace;
  let service: Service;
  let base: string;
  let key: string;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-report-log-'));
    serviceWorkspace = openWorkspace(path.join(directory, 'service'));
    const keys = loadServiceKeys(serviceWorkspace);
    service = await buildService({
      workspace: serviceWorkspace,
      signer: {
        key_id: keys.active.key_id,
        seed: keys.active.seed,
        public_key: keys.active.public_key,
        listed: keys.listed,
      },
      now: () => new Date(clock.at),
      log: { name: LOG_NAME, checkpointMs: 60_000 },
    });
    base = await service.app.listen({ host: '127.0.0.1', port: 0 });
    createTenant(serviceWorkspace, 'acme', 'scale');
    key = issueApiKey(serviceWorkspace, 'acme').key;
    for (let second = 1; second <= 4; second += 1) {
      clock.at = Date.parse(`2026-11-03T09:00:0${second}Z`);
      const response = await fetch(`${base}/tenants/acme/receipts?profile=nano`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(EMIT),
      });
      expect(response.status, await response.text()).toBe(201);
    }
  });
  afterAll(async () => {
    await service.close();
    serviceWorkspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('states the period complete at the log’s size, signed, and shows it in the HTML', async () => {
    const response = await fetch(
      `${base}/tenants/acme/evidence?since=2026-11-03T09:00:02Z&until=2026-11-03T09:00:04Z`,
      { headers: { authorization: `Bearer ${key}` } },
    );
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
      // The checkpoint's consistency with others seen: null until the import records it.
      const [entry] = report.completeness ?? [];
      expect([null, 'consistent']).toContain(entry?.consistency);
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
          consistency: entry?.consistency,
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
