import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogCompleteness } from '../../src-shared/api/logs-contract';
import { didKeyFromEd25519, utf8Encode } from '../../src-shared/crypto';
import type { JsonObject } from '../../src-shared/verify/fields';
import {
  CLAIM_LIMITS,
  COMPLETENESS_SECTION,
  countReportRows,
  renderReportHtml,
  reportVerdict,
  verifyReportHtml,
  type ReportRow,
  type SignedReport,
  type UnsignedReport,
} from '../../src-shared/formats/report';
import { signRuleD1 } from '../../src-shared/verify/signature';
import { createVerifyContext } from '../../src-shared/verify/context';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { completenessEntry } from '../operations/report';
import { writeReportPdf } from './pdf';

const node = createNodeCryptoProvider();
const SEED = new Uint8Array(32).fill(71);
const AUDITOR = didKeyFromEd25519(node.ed25519PublicKey(SEED));
const BUNDLE_A = 'a'.repeat(64);
const BUNDLE_B = 'b'.repeat(64);

const rows: ReportRow[] = [1, 2].map((index) => ({
  receipt_sha256: index.toString(16).padStart(64, '0'),
  receipt_id: `r-${index}`,
  format: 'profile/standard',
  status: 'PASS',
  trust: 'trusted',
  anchor_state: 'none',
  issued_at: null,
}));

function log(overrides: Partial<LogCompleteness>): LogCompleteness {
  return {
    status: 'complete',
    origin: 'evroom.local/0123456789abcdef/tenants/acme',
    key_name: 'evroom.local/0123456789abcdef',
    tree_size: 40,
    root_hex: 'c'.repeat(64),
    signer: 'pinned',
    period: { since: '2026-11-01T00:00:00.000Z', until: '2026-12-01T00:00:00.000Z' },
    first_index: 10,
    last_index: 19,
    missing: [],
    missing_count: 0,
    stale: false,
    consistency: 'consistent',
    sentence: 'complete for 2026-11-01T00:00:00.000Z to 2026-12-01T00:00:00.000Z at size 40',
    ...overrides,
  };
}

function unsigned(completeness: boolean): UnsignedReport {
  const entries = [
    completenessEntry({ bundle_sha256: BUNDLE_B, tenant_id: 'acme' }, log({})),
    completenessEntry(
      { bundle_sha256: BUNDLE_A, tenant_id: 'acme' },
      log({
        status: 'incomplete',
        period: { since: '2026-10-01T00:00:00.000Z', until: '2026-11-01T00:00:00.000Z' },
        missing: [18, 17],
        missing_count: 2,
        sentence: 'incomplete: 2 leaves missing (indices 17, 18)',
      }),
    ),
  ].filter((entry) => entry !== undefined);
  return {
    report_format: 'evroom.report/1',
    report_id: 'rpt_01M8AE17QWQ53ZDP85JFGE4RQP',
    generated_at: '2026-11-26T05:00:00.000Z',
    generator: { name: 'evroom', version: '0.1.0' },
    scope: { filters: {} },
    environment: { offline: true, ledger_audit_head: '0'.repeat(64) },
    trust_snapshot: {
      keys: [],
      sha256: '', // filled below
    },
    inputs: {
      bundles: [BUNDLE_A, BUNDLE_B].map((bundle_sha256, index) => ({
        file: `period-${index}.zip`,
        bundle_sha256,
        manifest_sha256: 'e'.repeat(64),
        signer_key_id: 'did:svc:acme',
        signature_status: 'valid',
        findings: 0,
      })),
    },
    counts: countReportRows(rows),
    findings: [],
    receipts: rows,
    ...(completeness ? { completeness: entries.sort((a, b) => (a.period.since! < b.period.since! ? -1 : 1)) } : {}),
    claim_limits: [...CLAIM_LIMITS],
    signer: { key_id: AUDITOR },
  };
}

function signed(report: UnsignedReport | JsonObject): SignedReport {
  const document = JSON.parse(JSON.stringify(report)) as JsonObject;
  // sha256 of JCS({"keys": []})
  (document.trust_snapshot as JsonObject).sha256 = Buffer.from(node.sha256(utf8Encode('{"keys":[]}'))).toString('hex');
  delete document.payload_sha256;
  delete document.sig_b64u;
  return signRuleD1(document, SEED, node) as unknown as SignedReport;
}

function verify(report: SignedReport): ReturnType<typeof verifyDocument> {
  return verifyDocument(utf8Encode(JSON.stringify(report)), createVerifyContext(node));
}

describe('completeness in audit reports', () => {
  it('an entry per bundle with log evidence: none for a bundle without, missing indices sorted and capped', () => {
    expect(completenessEntry({ bundle_sha256: BUNDLE_A, tenant_id: 'acme' }, null)).toBeUndefined();
    expect(
      completenessEntry({ bundle_sha256: BUNDLE_A, tenant_id: 'acme' }, log({ status: 'absent' })),
    ).toBeUndefined();
    const many = completenessEntry(
      { bundle_sha256: BUNDLE_A, tenant_id: null },
      log({
        status: 'incomplete',
        missing: Array.from({ length: 1000 }, (_, index) => 999 - index),
        missing_count: 5000,
      }),
    );
    expect(many?.missing).toEqual(Array.from({ length: 100 }, (_, index) => index));
    expect(many).toMatchObject({
      missing_count: 5000,
      tenant_id: null,
      status: 'incomplete',
      consistency: 'consistent',
    });
  });

  it('verifies with the section, and refuses an entry of another shape or of a bundle not listed', () => {
    const report = signed(unsigned(true));
    expect(verify(report).status).toBe('PASS');
    expect(verify(signed(unsigned(false))).status).toBe('PASS');

    const broken: [string, (entry: Record<string, unknown>) => void][] = [
      ['/completeness/0/extra', (entry) => (entry.extra = 1)],
      ['/completeness/0/bundle_sha256', (entry) => (entry.bundle_sha256 = 'f'.repeat(64))],
      ['/completeness/0/status', (entry) => (entry.status = 'absent')],
      ['/completeness/0/missing', (entry) => (entry.missing = [3, 2])],
      ['/completeness/0/consistency', (entry) => (entry.consistency = 'forked')],
    ];
    for (const [pointer, change] of broken) {
      const document = JSON.parse(JSON.stringify(unsigned(true))) as { completeness: Record<string, unknown>[] };
      change(document.completeness[0] as Record<string, unknown>);
      const verification = verify(signed(document as unknown as JsonObject));
      expect(verification.status, pointer).toBe('MALFORMED');
      expect(verification.errors.map((error) => error.path)).toContain(pointer);
    }
    const empty = JSON.parse(JSON.stringify(unsigned(true))) as { completeness: unknown[] };
    empty.completeness = [];
    expect(verify(signed(empty as unknown as JsonObject)).status).toBe('MALFORMED');
  });

  it('fails the verdict for an incomplete period or a split view, and says so in HTML and PDF', async () => {
    const report = signed(unsigned(true));
    const verdict = reportVerdict(report);
    expect(verdict.tone).toBe('fail');
    expect(verdict.headline).toContain('1 bundle not shown complete in the tenant’s log');
    expect(verdict.lines).toContainEqual([
      'completeness',
      `1 complete · 1 incomplete · 0 invalid (see ${COMPLETENESS_SECTION[1]})`,
    ]);
    const html = Array.from(renderReportHtml(report)).join('');
    expect(html).toContain(`<section id="completeness"><h2>${COMPLETENESS_SECTION[1]}</h2>`);
    expect(html).toContain(
      '<tr><td>period-0.zip</td><td>acme</td><td>2026-10-01T00:00:00.000Z to 2026-11-01T00:00:00.000Z</td><td class="b-altered">incomplete</td>',
    );
    expect(html).toContain('incomplete: 2 leaves missing (indices 17, 18)');
    expect(verifyReportHtml(html, createVerifyContext(node)).status).toBe('PASS');

    // Without log evidence the page has no such section, as before logs.
    const plain = Array.from(renderReportHtml(signed(unsigned(false)))).join('');
    expect(plain).not.toContain('id="completeness"');
    expect(reportVerdict(signed(unsigned(false))).tone).toBe('pass');

    const split = JSON.parse(JSON.stringify(unsigned(true))) as { completeness: Record<string, unknown>[] };
    split.completeness[1]!.consistency = 'split_view';
    const splitReport = signed(split as unknown as JsonObject);
    expect(reportVerdict(splitReport).headline).toContain('SPLIT VIEW');
    expect(Array.from(renderReportHtml(splitReport)).join('')).toContain('<td class="b-altered">SPLIT VIEW</td>');

    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-completeness-'));
    try {
      const file = path.join(directory, 'r.pdf');
      const out = fs.createWriteStream(file);
      const closed = new Promise<void>((resolve) => out.on('close', () => resolve()));
      await writeReportPdf(splitReport, JSON.stringify(splitReport), out);
      await closed;
      const text = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).stdout;
      expect(text).toContain(COMPLETENESS_SECTION[1]);
      expect(text).toMatch(/incomplete\s+acme\s+2026-10-01T00:00:00\.000Z to 2026-11-01T00:00:00\.000Z/);
      expect(text).toMatch(/SPLIT VIEW\s+acme\s+2026-11-01T00:00:00\.000Z to 2026-12-01T00:00:00\.000Z/);
      expect(text).toContain('complete for 2026-11-01T00:00:00.000Z to 2026-12-01T00:00:00.000Z at size 40');
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });
});
