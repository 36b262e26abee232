import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import { COUNTERSIGNER_OPTIONAL_INPUTS } from '../formats/countersigner/verify';
import { buildConformanceCases } from './conformance';
import { verifyDocument } from './verify';

const cases = buildConformanceCases(createPortableProvider());

describe('conformance cases with the portable provider', () => {
  it('cover every format and status the formats can produce', () => {
    const formats = new Set(cases.map((entry) => entry.expect.format));
    expect([...formats].sort()).toEqual(['classical', 'countersigner', 'envelope/svc-receipt-v1', 'sealed', 'unknown']);
    const statuses = new Set(cases.map((entry) => entry.expect.status));
    expect([...statuses].sort()).toEqual([
      'AUTH_FAILED',
      'INDETERMINATE',
      'INVALID',
      'MALFORMED',
      'MISMATCH',
      'PASS',
      'UNSUPPORTED',
    ]);
  });

  it.each(cases.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const report = verifyDocument(entry.input, entry.ctx);
    expect(report.format).toBe(entry.expect.format);
    expect(report.status).toBe(entry.expect.status);
    expect(report.trust.status).toBe(entry.expect.trust);
    if (entry.expect.error !== undefined) {
      const codes = report.errors.filter((error) => error.code === entry.expect.error?.code);
      expect(codes.length, JSON.stringify(report.errors)).toBeGreaterThan(0);
      if (entry.expect.error.path !== undefined)
        expect(codes.map((error) => error.path)).toContain(entry.expect.error.path);
    }
    if (entry.expect.innerStatus !== undefined) expect(report.inner?.status).toBe(entry.expect.innerStatus);
    if (entry.expect.claimedKeyId !== undefined) expect(report.trust.claimed_key_id).toBe(entry.expect.claimedKeyId);
    if (report.trust.status === 'unattributed') expect(report.trust.key_id).toBeUndefined();
    // PASS never hides a failing or missing check. The one exception is PROTOCOL 5's: a countersigner
    // record's optional inputs (the record, the audit path, the previous entry) are listed
    // `unavailable` when absent, and the document still PASSes on what it carries.
    if (report.status === 'PASS') {
      const optional = report.format === 'countersigner' ? COUNTERSIGNER_OPTIONAL_INPUTS : [];
      expect(
        report.checks.every(
          (check) =>
            check.status === 'pass' ||
            check.status === 'unchecked' ||
            (check.status === 'unavailable' && optional.includes(check.id)),
        ),
      ).toBe(true);
      expect(report.errors).toEqual([]);
    }
  });

  it('same input bytes give the same report as the text', () => {
    for (const entry of cases.slice(0, 5)) {
      expect(verifyDocument(new TextEncoder().encode(entry.input), entry.ctx)).toEqual(
        verifyDocument(entry.input, entry.ctx),
      );
    }
  });
});
