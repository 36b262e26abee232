import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CLAIM_LIMITS,
  REPORT_SECTIONS,
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

describe('the PDF layout', () => {
  it('never leaves a section title alone at the foot of a page, however full the page before it is', async () => {
    const titles = new Set<string>(REPORT_SECTIONS.map(([, title]) => title));
    const statuses: ReportRow['status'][] = [
      'PASS',
      'MISMATCH',
      'INVALID',
      'MALFORMED',
      'UNSUPPORTED',
      'INDETERMINATE',
    ];
    const trusts: ReportRow['trust'][] = [
      'trusted',
      'unpinned',
      'unattributed',
      'revoked',
      'expired',
      'not_applicable',
    ];
    const rows = statuses.flatMap((status, index) => [row(index * 2 + 1, status, trusts[index]!, 'none')]);
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-pdf-layout-'));
    const orphans: string[] = [];
    try {
      // More bundles push the later sections down the first pages a little at a time.
      for (let bundles = 0; bundles <= 40; bundles += 1) {
        const base = sampleReport(rows, false);
        const report: SignedReport = {
          ...base,
          inputs: {
            bundles: Array.from({ length: bundles }, (_, index) => ({
              file: `bundle-${index}.zip`,
              bundle_sha256: index.toString(16).padStart(64, '0'),
              manifest_sha256: 'e'.repeat(64),
              signer_key_id: 'did:svc:acme',
              signature_status: 'valid' as const,
              findings: 0,
            })),
          },
        };
        const file = path.join(directory, `r-${bundles}.pdf`);
        const out = fs.createWriteStream(file);
        const closed = new Promise<void>((resolve) => out.on('close', () => resolve()));
        await writeReportPdf(report, JSON.stringify(report), out);
        await closed;
        const pages = spawnSync('pdftotext', [file, '-'], { encoding: 'utf8' }).stdout.split('\f');
        pages.forEach((page, index) => {
          // The last line of a page's body: the running footer ("Audit report rpt_… · page N") aside.
          const lines = page
            .split('\n')
            .map((line) => line.trim())
            .filter((line) => line !== '' && !line.startsWith('Audit report rpt_'));
          const last = lines.at(-1);
          if (last !== undefined && titles.has(last) && index < pages.length - 1)
            orphans.push(`${bundles} bundles: "${last}" ends page ${index + 1}`);
        });
      }
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
    expect(orphans).toEqual([]);
  }, 60_000);
});
