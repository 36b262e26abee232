import { describe, expect, it } from 'vitest';
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import { ruleD1Payload } from '../../verify/signature';
import { countReportRows, receiptsJcs, reportJcs, type ReportRow, type UnsignedReport } from './model';

const rows: ReportRow[] = [
  {
    receipt_sha256: 'a'.repeat(64),
    receipt_id: 'rcp_"quoted"\\ \u0001 é 😀',
    format: 'typed/x',
    status: 'PASS',
    trust: 'unpinned',
    anchor_state: 'none',
    issued_at: '2026-01-01T00:00:00.000Z',
  },
  {
    receipt_sha256: 'b'.repeat(64),
    receipt_id: null,
    format: 'classical',
    status: 'INVALID',
    trust: 'not_applicable',
    anchor_state: 'resolved',
    issued_at: null,
  },
];

function sample(): UnsignedReport {
  return {
    report_format: 'evroom.report/1',
    report_id: 'rpt_01M83HVVZQCN9TKQP6G98G9743',
    generated_at: '2026-11-23T06:35:32.215Z',
    generator: { name: 'evroom', version: '0.1.0' },
    scope: { filters: { text: 'a "b"', status: 'PASS' }, as_of: '2026-11-01T00:00:00.000Z' },
    environment: { offline: true, ledger_audit_head: '0'.repeat(64) },
    trust_snapshot: { keys: [], sha256: 'c'.repeat(64) },
    inputs: { bundles: [] },
    counts: countReportRows(rows),
    findings: [{ bundle_sha256: 'd'.repeat(64), code: 'file_extra', path: 'x', message: '<b>' }],
    receipts: rows,
    claim_limits: ['one'],
    signer: { key_id: 'did:key:z6Mk' },
  };
}

describe('reportJcs', () => {
  it('equals jcs() of the report, signed and unsigned, whatever the strings hold', () => {
    const report = sample();
    expect(reportJcs(report)).toBe(jcs(report as unknown as JsonValue));
    expect(reportJcs(report)).toBe(ruleD1Payload(report as unknown as Record<string, JsonValue>));
    const signed = { ...report, payload_sha256: 'e'.repeat(64), sig_b64u: 'f'.repeat(86) };
    expect(reportJcs(signed, receiptsJcs(rows))).toBe(jcs(signed as unknown as JsonValue));
    expect(receiptsJcs([])).toBe('[]');
  });

  it('counts every vocabulary value, zeros included, and the formats present', () => {
    const counts = countReportRows(rows);
    expect(counts.by_status).toMatchObject({ PASS: 1, INVALID: 1, MALFORMED: 0 });
    expect(counts.by_anchor).toEqual({ none: 1, pending: 0, resolved: 1 });
    expect(counts.by_format).toEqual({ 'typed/x': 1, classical: 1 });
  });
});
