import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { AnchorsFileError, parseAnchorsFile, serializeAnchorsFile } from './anchors-file';

const BATCH = '2026-11-01T12:00Z';
const TX = `0x${'ab'.repeat(32)}`;
const PENDING = `urn:svc:anchor:pending:${BATCH}:0123456789abcdef`;
const RESOLVED = `urn:svc:anchor:base:123:${TX}:fedcba9876543210`;

function file(records: unknown[], batchId = BATCH): Uint8Array {
  return utf8Encode(
    JSON.stringify({ batch_id: batchId, anchors: records.map((record) => ({ receipt_sha256: null, record })) }),
  );
}

function problem(bytes: Uint8Array, expected = BATCH): AnchorsFileError {
  try {
    parseAnchorsFile(bytes, expected);
  } catch (error) {
    if (error instanceof AnchorsFileError) return error;
    throw error;
  }
  throw new Error('the anchors file was accepted');
}

describe('anchors files', () => {
  it('read each record with its status from the URN, and write what they read', () => {
    const records = [
      { svc_anchor: PENDING, batch_id: BATCH, eta_seconds: 60 },
      { svc_anchor: RESOLVED, batch_id: BATCH, network: 'base', block_height: 123, tx_hash: TX },
    ];
    const parsed = parseAnchorsFile(file(records), BATCH);
    expect(parsed.batch_id).toBe(BATCH);
    expect(parsed.anchors.map((anchor) => [anchor.svc_anchor, anchor.status])).toEqual([
      [PENDING, 'pending'],
      [RESOLVED, 'resolved'],
    ]);
    const text = serializeAnchorsFile(BATCH, parsed.anchors);
    expect(parseAnchorsFile(utf8Encode(text), BATCH).anchors).toEqual(parsed.anchors);
  });

  it('refuse a URN that breaks the rules of src-shared/anchor/urn.ts, or a pending URN of another batch', () => {
    for (const urn of [
      'urn:svc:anchor:base:123:0xabc:fedcba9876543210',
      'urn:svc:anchor:pending:B0:1',
      'urn:svc:anchor:',
      'urn:other:x',
      7,
    ]) {
      expect(problem(file([{ svc_anchor: urn }])).path, String(urn)).toBe('/anchors/0/record/svc_anchor');
    }
    const other = problem(file([{ svc_anchor: `urn:svc:anchor:pending:2026-11-01T12:01Z:0123456789abcdef` }]));
    expect(other.message).toContain('belongs to batch 2026-11-01T12:01Z');
  });

  it('refuse a batch id that is not a real minute, or not the one the file is named for', () => {
    expect(problem(file([], '2026-02-30T12:00Z'), '2026-02-30T12:00Z').path).toBe('/batch_id');
    expect(problem(file([]), '2026-11-01T12:01Z').message).toContain('named for 2026-11-01T12:01Z');
    expect(() => serializeAnchorsFile('2026-02-30T12:00Z', [])).toThrow(RangeError);
  });
});
