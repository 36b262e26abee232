import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLAIM_LIMITS,
  countReportRows,
  renderReportHtml,
  reportVerdict,
  type ReportRow,
  type SignedReport,
} from '../../src-shared/formats/report';
import { writeReportPdf } from './pdf';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

function row(index: number, status: ReportRow['status'], trust: ReportRow['trust'], anchor: ReportRow['anchor_state']) {
  return {
    receipt_sha256: index.toString(16).padStart(64, '0'),
    receipt_id: `r-${index}`,
    format: 'classical',
    status,
    trust,
    anchor_state: anchor,
    issued_at: null,
  } satisfies ReportRow;
}

/** A report as made from a ledger holding one altered bundle and one whose file name is unknown. */
function sampleReport(rows: ReportRow[], bundles = true): SignedReport {
  return {
    report_format: 'evroom.report/1',
    report_id: 'rpt_01M8AE17QWQ53ZDP85JFGE4RQP',
    generated_at: '2026-11-25T12:00:00.000Z',
    generator: { name: 'evroom', version: '0.1.0' },
    scope: { filters: {} },
    environment: { offline: true, ledger_audit_head: 'c'.repeat(64) },
    trust_snapshot: { keys: [], sha256: 'd'.repeat(64) },
    inputs: {
      bundles: bundles
        ? [
            {
              file: 'tampered.zip',
              bundle_sha256: HASH_A,
              manifest_sha256: 'e'.repeat(64),
              signer_key_id: 'did:svc:acme',
              signature_status: 'valid',
              findings: 2,
            },
            {
              file: null,
              bundle_sha256: HASH_B,
              manifest_sha256: 'f'.repeat(64),
              signer_key_id: 'did:svc:acme',
              signature_status: 'valid',
              findings: 0,
            },
          ]
        : [],
    },
    counts: countReportRows(rows),
    findings: bundles
      ? [
          { bundle_sha256: HASH_A, code: 'file_altered', path: 'receipts/r1.json', message: 'changed' },
          { bundle_sha256: HASH_A, code: 'file_missing', path: 'receipts/r2.json', message: 'missing' },
        ]
      : [],
    receipts: rows,
    claim_limits: [...CLAIM_LIMITS],
    signer: { key_id: 'did:key:z6MkqNpSH4qbFQ3YEJMQwmYf59ttpYsWmnZoxzRx1Z776gqm' },
    payload_sha256: '0'.repeat(64),
    sig_b64u: 'A'.repeat(86),
  };
}

describe('the verdict summary of a report', () => {
  it('says the worst first: not PASS or altered, then untrusted, then all good, and counts unattributed', () => {
    const failing = sampleReport([
      row(1, 'PASS', 'trusted', 'resolved'),
      row(2, 'MISMATCH', 'unattributed', 'none'),
      row(3, 'PASS', 'unpinned', 'pending'),
    ]);
    expect(reportVerdict(failing)).toEqual({
      tone: 'fail',
      icon: '✗',
      headline: 'Not all evidence holds: 1 of 3 receipts not PASS; 1 bundle altered after signing.',
      lines: [
        ['receipts', '3'],
        ['by status', '1 MISMATCH · 2 PASS'],
        ['by trust', '1 trusted · 1 unpinned · 1 unattributed'],
        [
          'bundles',
          `1 altered · 0 unverified · 1 intact: tampered.zip altered (2 findings); ${'b'.repeat(12)} (file name unknown) intact`,
        ],
        ['anchoring (as recorded)', '1 none · 1 pending · 1 resolved'],
      ],
    });
    const untrusted = reportVerdict(
      sampleReport([row(1, 'PASS', 'trusted', 'none'), row(2, 'PASS', 'unpinned', 'none')], false),
    );
    expect(untrusted.tone).toBe('warn');
    expect(untrusted.headline).toBe('Every receipt is PASS, but 1 of 2 receipts is not from a trusted issuer.');
    expect(untrusted.lines).toContainEqual(['by trust', '1 trusted · 1 unpinned · 0 unattributed']);
    expect(reportVerdict(sampleReport([row(1, 'PASS', 'trusted', 'none')], false))).toMatchObject({
      tone: 'pass',
      icon: '✓',
      headline: 'Every receipt is PASS and from a trusted issuer.',
    });
    expect(reportVerdict(sampleReport([], false))).toMatchObject({
      tone: 'empty',
      headline: expect.stringMatching(/^EMPTY: no receipts in scope\./),
    });
  });

  it('shows the verdict first and names bundles by file (or hash and "file name unknown") in the HTML and the PDF', async () => {
    const report = sampleReport([row(1, 'PASS', 'trusted', 'none'), row(2, 'INVALID', 'unattributed', 'none')]);
    const html = Array.from(renderReportHtml(report)).join('');
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="scope"'));
    expect(html).toContain(
      '<div class="verdict v-fail" data-verdict="fail"><p class="headline"><span class="icon" aria-hidden="true">✗</span>Not all evidence holds',
    );
    expect(html).toContain('<tr><td>tampered.zip</td><td class="b-altered">altered</td>');
    expect(html).toContain(`<tr><td>${'b'.repeat(12)} (file name unknown)</td><td class="b-intact">intact</td>`);
    expect(html).toContain('<tr><td>tampered.zip</td><td>file_altered</td>');
    expect(html).not.toContain(`<td class="hash">${'a'.repeat(12)}</td>`);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-verdict-'));
    try {
      const file = path.join(directory, 'r.pdf');
      const out = fs.createWriteStream(file);
      const closed = new Promise<void>((resolve) => out.on('close', () => resolve()));
      await writeReportPdf(report, JSON.stringify(report), out);
      await closed;
      const text = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).stdout;
      expect(text.indexOf('Verdict')).toBeLessThan(text.indexOf('Scope'));
      expect(text).toMatch(/✗ Not all evidence holds: 1 of 2 receipts not PASS; 1 bundle altered after signing\./);
      expect(text).toMatch(/altered\s+2\s+tampered\.zip/);
      expect(text).toMatch(/tampered\.zip · file_altered receipts\/r1\.json: changed/);
      expect(text).toContain(`${'b'.repeat(12)} (file name unknown)`);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
