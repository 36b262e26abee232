import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATUS_PRECEDENCE, type ReportStatus } from './report';
import { ReportBuilder, checkStatusOf, singleErrorReport, strongerStatus } from './report-builder';

const failing = ['MALFORMED', 'AUTH_FAILED', 'MISMATCH', 'INVALID'] as const;

function record(builder: ReportBuilder, status: ReportStatus, id: string): void {
  if (status === 'PASS') builder.pass(id);
  else if (status === 'INDETERMINATE') builder.unavailable(id, 'missing');
  else if (status === 'UNSUPPORTED') builder.unsupported(id, 'unsupported');
  else builder.fail(status, id, 'failed');
}

describe('status precedence (PROTOCOL section 1)', () => {
  it('orders MALFORMED > UNSUPPORTED > AUTH_FAILED > MISMATCH > INVALID > INDETERMINATE > PASS', () => {
    expect(STATUS_PRECEDENCE).toEqual([
      'MALFORMED',
      'UNSUPPORTED',
      'AUTH_FAILED',
      'MISMATCH',
      'INVALID',
      'INDETERMINATE',
      'PASS',
    ]);
    expect(strongerStatus('INVALID', 'MISMATCH')).toBe('MISMATCH');
    expect(strongerStatus('UNSUPPORTED', 'AUTH_FAILED')).toBe('UNSUPPORTED');
    expect(strongerStatus('INDETERMINATE', 'INVALID')).toBe('INVALID');
    expect(strongerStatus('PASS', 'INDETERMINATE')).toBe('INDETERMINATE');
    expect(strongerStatus('MALFORMED', 'UNSUPPORTED')).toBe('MALFORMED');
  });

  it('every pair of recorded facts gives the earlier status in the list, in either order', () => {
    for (const first of STATUS_PRECEDENCE) {
      for (const second of STATUS_PRECEDENCE) {
        const builder = new ReportBuilder('classical');
        builder.pass('schema');
        record(builder, first, 'a');
        record(builder, second, 'b');
        const expected =
          STATUS_PRECEDENCE[Math.min(STATUS_PRECEDENCE.indexOf(first), STATUS_PRECEDENCE.indexOf(second))];
        expect(builder.build().status, `${first} + ${second}`).toBe(expected);
      }
    }
  });

  it('any sequence of facts yields the strongest one, whatever the order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...STATUS_PRECEDENCE), { minLength: 1, maxLength: 12 }), (statuses) => {
        const builder = new ReportBuilder('classical');
        builder.pass('schema');
        statuses.forEach((status, index) => record(builder, status, `c${index}`));
        const strongest = statuses.reduce(strongerStatus, 'PASS');
        expect(builder.build().status).toBe(strongest);
      }),
    );
  });
});

describe('ReportBuilder', () => {
  it('lists planned checks in order and marks unreached ones unchecked', () => {
    const builder = new ReportBuilder('classical', ['schema', 'alg', 'signature']);
    builder.fail('MALFORMED', 'schema', 'bad', { code: 'missing_property', path: '/signature', message: 'missing' });
    builder.pass('extra', 'an unplanned check');
    const report = builder.build();
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'fail'],
      ['alg', 'unchecked'],
      ['signature', 'unchecked'],
      ['extra', 'pass'],
    ]);
    expect(report.checks[1]?.detail).toMatch(/^Not checked/);
    expect(report.errors).toEqual([{ code: 'missing_property', path: '/signature', message: 'missing' }]);
    expect(report.status).toBe('MALFORMED');
    expect(report.report_version).toBe('1');
  });

  it('gives each report its own checks and errors, however often it builds', () => {
    const builder = new ReportBuilder('classical', Object.freeze(['schema', 'signature']));
    builder.pass('schema', 'fits');
    builder.fail('INVALID', 'signature', 'bad', { code: 'signature_invalid', path: '/signature', message: 'bad' });
    builder.pass('unplanned', 'extra');
    const first = builder.build();
    const second = builder.build();
    expect(second).toEqual(first);
    expect(first.checks.map((check) => check.id)).toEqual(['schema', 'signature', 'unplanned']);
    (first.checks[0] as { detail?: string }).detail = 'changed';
    (first.errors[0] as { message: string }).message = 'changed';
    first.checks.pop();
    first.errors.pop();
    const third = builder.build();
    expect(third).toEqual(second);
    expect(second.checks[0]?.detail).toBe('fits');
    expect(second.errors).toEqual([{ code: 'signature_invalid', path: '/signature', message: 'bad' }]);
    builder.pass('later', 'after the first reports');
    expect(second.checks).toHaveLength(3);
    expect(builder.build().checks.map((check) => check.id)).toEqual(['schema', 'signature', 'unplanned', 'later']);
  });

  it('refuses a plan that names a check twice', () => {
    expect(() => new ReportBuilder('classical', ['a', 'b', 'a'])).toThrow(/must differ/);
  });

  it('is never PASS when nothing passed', () => {
    const builder = new ReportBuilder('unknown', ['a']);
    builder.unchecked('a', 'skipped');
    const report = builder.build();
    expect(report.status).toBe('INDETERMINATE');
    expect(report.errors.map((error) => error.code)).toEqual(['nothing_verified']);
    expect(new ReportBuilder('unknown').build().status).toBe('INDETERMINATE');
  });

  it('keeps the worse outcome when a check is recorded twice', () => {
    const builder = new ReportBuilder('classical');
    builder.fail('INVALID', 'signature', 'bad');
    builder.pass('signature', 'good');
    builder.unchecked('signature', 'skipped');
    expect(builder.build().checks).toEqual([{ id: 'signature', status: 'fail', detail: 'bad' }]);
  });

  it('unchecked does not change the status; unavailable makes it INDETERMINATE', () => {
    const builder = new ReportBuilder('countersigner');
    builder.pass('signature');
    builder.unchecked('log_consistency', 'offline');
    expect(builder.build().status).toBe('PASS');
    builder.unavailable('key', 'no key');
    expect(builder.build().status).toBe('INDETERMINATE');
  });

  it('notSupplied lists a check unavailable without changing the status', () => {
    const builder = new ReportBuilder('countersigner', ['signature', 'record_digest']);
    builder.pass('signature');
    builder.notSupplied('record_digest', 'no record');
    const report = builder.build();
    expect(report.status).toBe('PASS');
    expect(report.checks).toContainEqual({ id: 'record_digest', status: 'unavailable', detail: 'no record' });
    // It never hides a failure recorded for the same check.
    builder.fail('MISMATCH', 'record_digest', 'differs');
    builder.notSupplied('record_digest', 'no record');
    expect(builder.build().checks).toContainEqual({ id: 'record_digest', status: 'fail', detail: 'differs' });
  });

  it('defaults trust to not_applicable and copies the trust it is given', () => {
    const builder = new ReportBuilder('classical');
    builder.pass('signature');
    expect(builder.build().trust.status).toBe('not_applicable');
    const trust = { status: 'trusted' as const, key_id: 'did:svc:a', label: 'A' };
    builder.setTrust(trust);
    trust.label = 'changed later';
    expect(builder.build().trust).toEqual({ status: 'trusted', key_id: 'did:svc:a', label: 'A' });
  });

  it('keeps notes once each', () => {
    const builder = new ReportBuilder('classical');
    builder.pass('a').note('one').note('one').note('two');
    expect(builder.build().notes).toEqual(['one', 'two']);
  });

  it('takes status and trust from an inner report and summarizes it as a check', () => {
    const inner = singleErrorReport('classical', 'MISMATCH', 'raw_payload', {
      code: 'raw_payload_mismatch',
      path: '/raw_payload',
      message: 'differs',
    });
    inner.trust = { status: 'revoked', key_id: 'did:svc:a' };
    const builder = new ReportBuilder('sealed', ['decryption', 'inner']);
    builder.pass('decryption');
    builder.setInner(inner, 'inner', 'inner detail');
    const report = builder.build();
    expect(report.status).toBe('MISMATCH');
    expect(report.trust).toEqual({ status: 'revoked', key_id: 'did:svc:a' });
    expect(report.inner).toBe(inner);
    expect(report.checks[1]).toEqual({ id: 'inner', status: 'fail', detail: 'inner detail' });
  });

  it('refuses statuses a failing check cannot raise', () => {
    const builder = new ReportBuilder('classical');
    expect(() => builder.fail('PASS' as never, 'a', 'x')).toThrow(RangeError);
    expect(() => builder.fail('UNSUPPORTED' as never, 'a', 'x')).toThrow(RangeError);
    expect(() => builder.pass('')).toThrow(TypeError);
    expect(() => new ReportBuilder(3 as never)).toThrow(TypeError);
  });

  it('maps report statuses to check statuses', () => {
    expect(STATUS_PRECEDENCE.map(checkStatusOf)).toEqual([
      'fail',
      'unsupported',
      'fail',
      'fail',
      'fail',
      'unavailable',
      'pass',
    ]);
  });

  it('singleErrorReport gives one check and one error with the requested status', () => {
    for (const status of [...failing, 'UNSUPPORTED', 'INDETERMINATE'] as const) {
      const report = singleErrorReport('unknown', status, 'parse', { code: 'x', path: '/a', message: 'm' });
      expect(report.status).toBe(status);
      expect(report.checks).toHaveLength(1);
      expect(report.errors).toEqual([{ code: 'x', path: '/a', message: 'm' }]);
    }
  });
});
