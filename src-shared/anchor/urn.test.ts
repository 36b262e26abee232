import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from '../crypto';
import {
  anchorSuffix,
  batchIdOf,
  isAnchorNetwork,
  isAnchorUrn,
  isBatchId,
  isPendingAnchorUrn,
  isResolvedAnchorUrn,
  parseAnchorUrn,
  pendingAnchorUrn,
  resolvedAnchorUrn,
  resolvesPendingUrn,
} from './urn';

const TX = `0x${'ab'.repeat(32)}`;
const PENDING = 'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcdef';
const RESOLVED = `urn:svc:anchor:base:123:${TX}:0123456789abcdef`;

describe('batch ids', () => {
  it('are real UTC calendar minutes YYYY-MM-DDThh:mmZ', () => {
    for (const id of ['2026-11-22T04:00Z', '2028-02-29T23:59Z', '0000-01-01T00:00Z'])
      expect(isBatchId(id), id).toBe(true);
    for (const id of [
      '2026-02-30T04:00Z',
      '2027-02-29T00:00Z',
      '2026-11-22T24:00Z',
      '2026-11-22T04:60Z',
      '2026-11-22T04:00',
      '2026-11-22T04:00:00Z',
      '2026-11-22 04:00Z',
      ' 2026-11-22T04:00Z',
      20261122,
      null,
    ]) {
      expect(isBatchId(id), String(id)).toBe(false);
    }
  });

  it('of an instant is the UTC minute it falls in', () => {
    expect(batchIdOf(new Date('2026-11-22T04:05:59.999Z'))).toBe('2026-11-22T04:05Z');
    expect(batchIdOf(new Date('2026-11-22T04:05:00.000+02:00'))).toBe('2026-11-22T02:05Z');
    expect(isBatchId(batchIdOf(new Date()))).toBe(true);
    expect(() => batchIdOf(new Date(Number.NaN))).toThrow(TypeError);
    expect(() => batchIdOf('2026-11-22' as unknown as Date)).toThrow(TypeError);
    expect(() => batchIdOf(new Date(Date.UTC(10000, 0, 1)))).toThrow(RangeError);
  });
});

describe('anchor URNs', () => {
  it('parse in both forms of PROTOCOL section 8', () => {
    expect(parseAnchorUrn(PENDING)).toEqual({
      status: 'pending',
      batch_id: '2026-11-22T04:00Z',
      suffix: '0123456789abcdef',
    });
    expect(parseAnchorUrn(RESOLVED)).toEqual({
      status: 'resolved',
      network: 'base',
      block_height: 123,
      tx_hash: TX,
      suffix: '0123456789abcdef',
    });
    expect(parseAnchorUrn(`urn:svc:anchor:base-sepolia:0:${TX}:ffffffffffffffff`)).toMatchObject({
      network: 'base-sepolia',
      block_height: 0,
    });
    expect(isAnchorUrn(PENDING) && isPendingAnchorUrn(PENDING) && !isResolvedAnchorUrn(PENDING)).toBe(true);
    expect(isAnchorUrn(RESOLVED) && isResolvedAnchorUrn(RESOLVED) && !isPendingAnchorUrn(RESOLVED)).toBe(true);
  });

  it('refuse every other spelling', () => {
    const bad = [
      'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789ABCDEF',
      'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcde',
      'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcdef0',
      'urn:svc:anchor:pending:2026-02-30T04:00Z:0123456789abcdef',
      'urn:svc:anchor:pending:B0:0123456789abcdef',
      'urn:svc:anchor:pending:2026-11-22T04:00Z',
      'urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcdef:extra',
      `urn:svc:anchor:base:0123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:base:-1:${TX}:0123456789abcdef`,
      `urn:svc:anchor:base:99999999999999999:${TX}:0123456789abcdef`,
      'urn:svc:anchor:base:123:0xabc:0123456789abcdef',
      `urn:svc:anchor:base:123:${TX.toUpperCase().replace('0X', '0x')}:0123456789abcdef`,
      `urn:svc:anchor:base:123:${TX.slice(2)}:0123456789abcdef`,
      `urn:svc:anchor:Base:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:1base:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:base-:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:${'n'.repeat(65)}:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor::123:${TX}:0123456789abcdef`,
      `URN:svc:anchor:base:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:base:123:${TX}:0123456789abcdef `,
      `urn:other:base:123:${TX}:0123456789abcdef`,
      `urn:svc:anchor:pending:${'x'.repeat(600)}`,
      '',
      42,
      undefined,
    ];
    for (const value of bad) {
      expect(parseAnchorUrn(value), String(value)).toBeUndefined();
      expect(isAnchorUrn(value), String(value)).toBe(false);
    }
    expect(isAnchorNetwork('pending')).toBe(false);
  });

  it('are built from their parts and read back', () => {
    const digest = new Uint8Array(createHash('sha256').update('receipt').digest());
    const canonicalSha256 = b64uEncode(digest);
    // The suffix is the hex of canonical_sha256's bytes, first 16 characters.
    const suffix = anchorSuffix(b64uDecode(canonicalSha256));
    expect(suffix).toBe(createHash('sha256').update('receipt').digest('hex').slice(0, 16));
    const pending = pendingAnchorUrn('2026-11-22T04:00Z', suffix);
    expect(pending).toBe(`urn:svc:anchor:pending:2026-11-22T04:00Z:${suffix}`);
    const resolved = resolvedAnchorUrn({ network: 'base', block_height: 9_007_199_254_740_991, tx_hash: TX, suffix });
    expect(parseAnchorUrn(resolved)).toEqual({
      status: 'resolved',
      network: 'base',
      block_height: 9_007_199_254_740_991,
      tx_hash: TX,
      suffix,
    });
    expect(resolvesPendingUrn(pending, resolved)).toBe(true);
    expect(resolvesPendingUrn(pending, RESOLVED)).toBe(false);
    expect(resolvesPendingUrn(resolved, pending)).toBe(false);
  });

  it('check the parts they are built from', () => {
    expect(() => anchorSuffix(new Uint8Array(31))).toThrow(RangeError);
    expect(() => anchorSuffix('ab' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => pendingAnchorUrn('2026-11-22T04:00', '0123456789abcdef')).toThrow(RangeError);
    expect(() => pendingAnchorUrn('2026-11-22T04:00Z', '0123')).toThrow(RangeError);
    const parts = { network: 'base', block_height: 1, tx_hash: TX, suffix: '0123456789abcdef' };
    expect(() => resolvedAnchorUrn({ ...parts, network: 'pending' })).toThrow(RangeError);
    expect(() => resolvedAnchorUrn({ ...parts, block_height: 1.5 })).toThrow(RangeError);
    expect(() => resolvedAnchorUrn({ ...parts, tx_hash: '0xabc' })).toThrow(RangeError);
    expect(() => resolvedAnchorUrn({ ...parts, suffix: 'G123456789abcdef' })).toThrow(RangeError);
    expect(() => resolvedAnchorUrn(null as never)).toThrow(TypeError);
  });
});
