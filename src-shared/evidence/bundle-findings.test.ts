import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../crypto';
import {
  addCountFindings,
  addFileFindings,
  addReceiptNameFinding,
  addSignatureFindings,
  FindingList,
  MAX_LISTED_FINDINGS,
  readAdvertisedKeys,
} from './bundle-findings';
import type { BundlePathKind } from './bundle-layout';

function columns<T extends { name: string; kind?: BundlePathKind; bytes: number; sha256: string }>(rows: T[]) {
  return {
    count: rows.length,
    name: (index: number) => rows[index]!.name,
    path: (index: number) => rows[index]!.name,
    kind: (index: number) => rows[index]!.kind ?? 'receipt',
    bytes: (index: number) => rows[index]!.bytes,
    sha256: (index: number) => rows[index]!.sha256,
  };
}

describe('bundle findings', () => {
  it('lists the first findings and counts every one', () => {
    const findings = new FindingList();
    for (let index = 0; index < MAX_LISTED_FINDINGS + 5; index += 1) findings.add('file_extra', `f${index}`, 'extra');
    expect(findings.listed).toHaveLength(MAX_LISTED_FINDINGS);
    expect(findings.total).toBe(MAX_LISTED_FINDINGS + 5);
    expect(findings.counts).toEqual({ file_extra: MAX_LISTED_FINDINGS + 5 });
  });

  it('compares the zip with the manifest: missing and altered in list order, then extra and unexpected', () => {
    const listed = [
      { name: 'receipts/a.json', bytes: 3, sha256: 'aa' },
      { name: 'receipts/gone.json', bytes: 1, sha256: 'bb' },
    ];
    const zip = [
      { name: 'manifest.json', kind: 'manifest' as const, bytes: 9, sha256: 'mm' },
      { name: 'receipts/a.json', bytes: 3, sha256: 'cc' },
      { name: 'notes.txt', kind: 'other' as const, bytes: 5, sha256: 'dd' },
    ];
    const findings = new FindingList();
    addFileFindings(
      columns(listed),
      columns(zip),
      (item, index) => listed[item]!.sha256 === zip[index]!.sha256,
      findings,
    );
    expect(findings.listed.map((finding) => [finding.code, finding.path])).toEqual([
      ['file_mismatch', 'receipts/a.json'],
      ['file_missing', 'receipts/gone.json'],
      ['file_extra', 'notes.txt'],
      ['unexpected_file', 'notes.txt'],
    ]);
    expect(findings.listed[0]!.message).toBe(
      'The file differs from the manifest: 3 bytes with SHA-256 cc, the manifest says 3 bytes with SHA-256 aa.',
    );
  });

  it('names a receipt file neither by its id nor by its SHA-256', () => {
    const findings = new FindingList();
    addReceiptNameFinding(findings, 'receipts/rcp_1.json', 'rcp_1', 'rcp_1', 'ab');
    addReceiptNameFinding(findings, 'receipts/ab.json', 'ab', 'rcp_1', 'ab');
    addReceiptNameFinding(findings, 'receipts/x.json', 'x', null, 'ab');
    expect(findings.total).toBe(0);
    addReceiptNameFinding(findings, 'receipts/x.json', 'x', 'rcp_1', 'ab');
    expect(findings.listed).toEqual([
      {
        code: 'receipt_name_mismatch',
        path: 'receipts/x.json',
        message: 'The file is named x but holds receipt rcp_1.',
      },
    ]);
  });

  it('reports the signature and the counts', () => {
    const findings = new FindingList();
    addSignatureFindings(
      { status: 'valid', key_id: 'did:other', detail: '', trust: { status: 'unpinned' } } as never,
      'did:named',
      findings,
    );
    addCountFindings({ receipts: 2, anchors: 1 }, 3, 1, findings);
    addCountFindings({ anchors: 5 }, 0, undefined, findings);
    expect(findings.listed.map((finding) => finding.code)).toEqual(['manifest_key_mismatch', 'count_mismatch']);
  });

  it('does not use a keys file that is not UTF-8, or that gives a known key_id another key', () => {
    const findings = new FindingList();
    expect(readAdvertisedKeys(new Uint8Array([0x7b, 0xff, 0x7d]), [], findings)).toEqual([]);
    expect(findings.listed).toEqual([
      {
        code: 'keys_invalid',
        path: 'keys/service-keys.json',
        message: 'The key file cannot be used: utf8Decode: the bytes are not valid UTF-8',
      },
    ]);
    expect(readAdvertisedKeys(undefined, [], findings)).toEqual([]);
    expect(readAdvertisedKeys(utf8Encode('{"keys": ['), [], findings)).toEqual([]);
    expect(findings.total).toBe(2);
  });
});
