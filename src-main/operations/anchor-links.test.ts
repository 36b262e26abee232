import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchorSuffix, pendingAnchorUrn, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { hexDecode, utf8Encode } from '../../src-shared/crypto';
import { issueProfileReceipt } from '../../src-shared/formats/profile';
import { jcs } from '../../src-shared/json';
import type { JsonValue } from '../../src-shared/json/types';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { getReceipt, listAnchors, openLedger, type NewAnchor } from '../ledger/index';
import { BundleReceiptDigests, linkAnchorsToReceipts } from './anchor-links';
import { serializeAnchorsFile } from '../evidence/anchors-file';
import { importBundle } from './import';
import { bundleParts, keyEntryFor, zipBundle } from '../evidence/test-support';

const crypto = createNodeCryptoProvider();
const issuerSeed = new Uint8Array(32).fill(31);
const ISSUER = 'did:svc:acme:k1';
const signerSeed = new Uint8Array(32).fill(32);
const SIGNER = 'did:svc:acme:bundles';
const BATCH = '2026-11-01T12:00Z';
const TX = `0x${'ab'.repeat(32)}`;
const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

function receipt(index: number): { stem: string; bytes: Uint8Array; sha: string } {
  const issued = issueProfileReceipt(
    'standard',
    {
      agent_did: 'did:web:agent.example.com',
      content: { sha256: sha256Hex(`anchored ${index}`), type: 'application/json' },
      smsh: { sealed: false, declaration: 'none' },
      hktn_context: { reputation_tier: 'gold' },
    },
    issuerSeed,
    ISSUER,
    crypto,
    { now: new Date(Date.UTC(2026, 10, 1, 12, 0, index)) },
  );
  // The receipt's identity in the ledger: SHA-256 of its JCS form (= canonical_sha256).
  return {
    stem: (issued.receipt as { id: string }).id,
    bytes: utf8Encode(JSON.stringify(issued, null, 1)),
    sha: sha256Hex(jcs(issued as unknown as JsonValue)),
  };
}

function pendingRecord(sha: string): Record<string, unknown> {
  return { svc_anchor: pendingAnchorUrn(BATCH, anchorSuffix(hexDecode(sha))), batch_id: BATCH, eta_seconds: 60 };
}

function resolvedRecord(sha: string): Record<string, unknown> {
  return {
    svc_anchor: resolvedAnchorUrn({
      network: 'base',
      block_height: 77,
      tx_hash: TX,
      suffix: anchorSuffix(hexDecode(sha)),
    }),
    batch_id: BATCH,
    network: 'base',
    block_height: 77,
    tx_hash: TX,
    merkle_root: `sha256:${'1'.repeat(64)}`,
    merkle_path: [],
    verified_at: '2026-11-01T12:05:00Z',
  };
}

const anchor = (svcAnchor: string, receiptSha256: string | null = null): NewAnchor => ({
  svc_anchor: svcAnchor,
  batch_id: BATCH,
  receipt_sha256: receiptSha256,
  record: {},
  status: 'pending',
});

describe('linkAnchorsToReceipts', () => {
  const a = `0123456789abcdef${'0'.repeat(48)}`;
  const b = `0123456789abcdef${'1'.repeat(48)}`;
  const c = `fedcba9876543210${'2'.repeat(48)}`;

  it('links a null receipt_sha256 to the one receipt starting with the suffix; repeats count once', () => {
    const linked = linkAnchorsToReceipts([anchor(pendingAnchorUrn(BATCH, 'fedcba9876543210'))], [a, c, c]);
    expect(linked[0]?.receipt_sha256).toBe(c);
  });

  it('leaves it unlinked with no match or with two matches, and keeps a given receipt_sha256', () => {
    const anchors = [
      anchor(pendingAnchorUrn(BATCH, '0123456789abcdef')),
      anchor(pendingAnchorUrn(BATCH, '1111111111111111')),
      anchor(pendingAnchorUrn(BATCH, 'fedcba9876543210'), a),
    ];
    const linked = linkAnchorsToReceipts(anchors, [a, b, c]);
    expect(linked.map((item) => item.receipt_sha256)).toEqual([null, null, a]);
    expect(linked[2]).toBe(anchors[2]);
  });

  it('does not read the receipts when nothing needs a link', () => {
    const receipts = {
      [Symbol.iterator](): Iterator<string> {
        throw new Error('read');
      },
    };
    expect(linkAnchorsToReceipts([anchor(pendingAnchorUrn(BATCH, 'fedcba9876543210'), c)], receipts)).toHaveLength(1);
    expect(() => linkAnchorsToReceipts([anchor(pendingAnchorUrn(BATCH, 'fedcba9876543210'))], receipts)).toThrow(
      'read',
    );
  });

  it('BundleReceiptDigests keeps every digest across chunks, and refuses what is not hex', () => {
    const digests = new BundleReceiptDigests();
    const added = Array.from({ length: 9000 }, (_, index) => sha256Hex(String(index)));
    for (const digest of added) digests.add(digest);
    expect(digests.size).toBe(9000);
    expect([...digests]).toEqual(added);
    expect(() => digests.add('ABC')).toThrow(RangeError);
    expect(() => digests.add(added[0]?.toUpperCase() as string)).toThrow(RangeError);
  });
});

describe('importBundle links anchors to the bundle’s receipts (real zip, real ledger)', () => {
  let directory: string;
  const receipts = Array.from({ length: 5 }, (_, index) => receipt(index));
  const keys = [keyEntryFor(ISSUER, issuerSeed, crypto), keyEntryFor(SIGNER, signerSeed, crypto)];
  const stranger = sha256Hex('a receipt that is not in the bundle');
  const entries = [
    { receipt_sha256: null, record: pendingRecord((receipts[0] as { sha: string }).sha) },
    { receipt_sha256: null, record: resolvedRecord((receipts[1] as { sha: string }).sha) },
    // Given in the file: kept, even though the suffix names receipt 3.
    {
      receipt_sha256: (receipts[2] as { sha: string }).sha,
      record: pendingRecord((receipts[3] as { sha: string }).sha),
    },
    { receipt_sha256: null, record: pendingRecord(stranger) },
  ];

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-anchor-links-'));
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it.each([
    ['receipts before anchors (as evroom export writes)', false],
    ['anchors before receipts', true],
  ])('%s', async (_name, anchorsFirst) => {
    const parts = bundleParts(receipts, {
      keyId: SIGNER,
      keys,
      anchors: { [BATCH]: serializeAnchorsFile(BATCH, entries) },
    });
    parts.manifest.counts = { receipts: receipts.length, anchors: entries.length };
    if (anchorsFirst) {
      const reordered = new Map(
        [...parts.files].sort(([left], [right]) =>
          left.startsWith('anchors/') ? -1 : right.startsWith('anchors/') ? 1 : 0,
        ),
      );
      expect([...reordered.keys()][0]).toBe(`anchors/${BATCH}.json`);
      parts.files = reordered;
    }
    const zip = path.join(directory, `bundle-${String(anchorsFirst)}.zip`);
    fs.writeFileSync(zip, zipBundle(parts, { seed: signerSeed, keyId: SIGNER }, crypto));
    const ledger = openLedger(path.join(directory, `ledger-${String(anchorsFirst)}.sqlite`));
    try {
      const result = await importBundle(ledger, zip, { workers: 1 });
      expect(result.counts).toMatchObject({ receipts: 5, receiptsNew: 5, anchors: 4, anchorsNew: 4 });
      expect(result.clean).toBe(true);
      const stored = new Map(
        listAnchors(ledger.readable, { limit: 100 }).rows.map((row) => [row.svc_anchor, row.receipt_sha256]),
      );
      const sha = (index: number): string => (receipts[index] as { sha: string }).sha;
      expect(stored.get(String(entries[0]?.record.svc_anchor))).toBe(sha(0));
      expect(stored.get(String(entries[1]?.record.svc_anchor))).toBe(sha(1));
      expect(stored.get(String(entries[2]?.record.svc_anchor))).toBe(sha(2));
      expect(stored.get(String(entries[3]?.record.svc_anchor))).toBeNull();
      // The linked digests are the ledger's own receipt_sha256 values.
      for (const index of [0, 1, 2]) expect(getReceipt(ledger.readable, sha(index))).toBeDefined();
      expect(listAnchors(ledger.readable, { receipt_sha256: sha(1) }).rows.map((row) => row.status)).toEqual([
        'resolved',
      ]);
    } finally {
      ledger.close();
    }
  });
});
