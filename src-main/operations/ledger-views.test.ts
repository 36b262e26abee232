import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { signEnvelope } from '../../src-shared/formats/envelope';
import { signClassical } from '../../src-shared/formats/classical';
import { createVerifyContext } from '../../src-shared/verify/context';
import { bundleDetail, findReceipt, overview, receiptDetail } from './ledger-views';
import { saveVerified, verifyBytes } from './verify';
import { nodeCrypto, openWorkspace, type Workspace } from './workspace';

const seed = new Uint8Array(32).fill(71);

describe('ledger views', () => {
  let directory: string;
  let workspace: Workspace;

  function save(bytes: Uint8Array): number {
    const context = createVerifyContext(nodeCrypto(), { pinned: [], advertised: [], secrets: [] });
    const [saved] = saveVerified(workspace, [
      { bytes, facts: verifyBytes(bytes, context), source: { kind: 'file', ref: 'test.json' } },
    ]);
    return saved!.id;
  }

  /** An envelope with a document id; two with one id and other content are two receipts. */
  function envelope(receiptId: string, sequence: number): Uint8Array {
    const signed = signEnvelope(
      { v: 'svc-receipt-v1', receipt_id: receiptId, issued_at: '2026-11-01T12:00:00Z', sequence },
      { service: { key_id: 'did:svc:acme:k1', seed } },
      nodeCrypto(),
    );
    return utf8Encode(JSON.stringify(signed));
  }

  /** The issuer key id the ledger stored for a receipt. */
  function detailKeyId(id: number): string | null {
    return receiptDetail(workspace, id)?.issuer_key_id ?? null;
  }

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-views-'));
    workspace = openWorkspace(directory);
  });
  afterEach(() => {
    workspace.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('finds a receipt by row id, by SHA-256, and by document id; says when none or several match', () => {
    const id = save(utf8Encode(signClassical({ sequence: 1 }, seed, nodeCrypto())));
    const found = findReceipt(workspace, String(id));
    expect(found).toMatchObject({ kind: 'found', receipt: { id } });
    if (found.kind !== 'found') throw new Error('not found');
    expect(findReceipt(workspace, found.receipt.receipt_sha256)).toMatchObject({ kind: 'found', receipt: { id } });
    expect(findReceipt(workspace, String(id + 1))).toEqual({ kind: 'none' });
    expect(findReceipt(workspace, 'rcp_nothing')).toEqual({ kind: 'none' });
    expect(findReceipt(workspace, '0')).toEqual({ kind: 'none' });
    const one = save(envelope('rcp_shared', 1));
    expect(findReceipt(workspace, 'rcp_shared')).toMatchObject({ kind: 'found', receipt: { id: one } });
    const two = save(envelope('rcp_shared', 2));
    expect(findReceipt(workspace, 'rcp_shared')).toEqual({
      kind: 'ambiguous',
      rows: expect.arrayContaining([one, two]),
    });
  });

  it('gives the overview and a receipt in detail, and nothing for rows that are not there', () => {
    const id = save(utf8Encode(signClassical({ sequence: 2 }, seed, nodeCrypto())));
    const altered = utf8Encode(
      Buffer.from(signClassical({ sequence: 3 }, seed, nodeCrypto()))
        .toString()
        .replace('"sequence":3', '"sequence":4'),
    );
    const bad = save(altered);
    const view = overview(workspace);
    expect(view).toMatchObject({
      receipts: 2,
      bundles: 0,
      pinnedKeys: 0,
      byFormat: [{ value: 'classical', count: 2 }],
    });
    expect(view.attention.map((row) => row.id)).toEqual([bad]);
    // The valid receipt's key is not pinned: it needs attention; the altered one's named key did
    // not sign it (unattributed) and is not listed as an issuer.
    expect(detailKeyId(id)).toMatch(/^did:key:/);
    expect(view.unpinnedIssuers).toEqual([{ issuer_key_id: detailKeyId(id), receipts: 1 }]);
    expect(view.unpinnedIssuerCount).toBe(1);
    const detail = receiptDetail(workspace, id);
    expect(detail).toMatchObject({
      id,
      format: 'classical',
      status: 'PASS',
      sources: [{ kind: 'file', ref: 'test.json' }],
    });
    expect(detail?.raw.startsWith('{')).toBe(true);
    expect(receiptDetail(workspace, bad + 100)).toBeUndefined();
    expect(bundleDetail(workspace, 1)).toBeUndefined();
  });
});
