/**
 * Helpers for tests of anchoring in the app: post a batch root on a real chain (anvil) and
 * build a real evidence bundle whose anchors/<batch_id>.json holds the resolved records of its
 * receipts. Used by operations/anchors.test.ts and e2e/anchors.e2e.ts; not by the program.
 *
 * The bundle is made the way the exporter makes one: real signed profile receipts verified and
 * stored in a throwaway ledger, their anchor records stored beside them, then `exportBundle`
 * writes the zip (every anchor record of the ledger goes into anchors/) and signs its manifest.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeAnchorHash } from '../../src-shared/anchor/proof';
import { anchorSuffix, resolvedAnchorUrn } from '../../src-shared/anchor/urn';
import { hexDecode, hexEncode } from '../../src-shared/crypto/encoding';
import { anchorTree } from '../../src-shared/crypto/merkle';
import { issueProfileReceipt } from '../../src-shared/formats/profile';
import type { KeyEntry, VerifyContext } from '../../src-shared/verify/context';
import { anchorAccount, type ChainClient } from '../anchor/chain';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { verifyReceiptBytes } from '../core/receipt-facts';
import { exportBundle } from '../evidence/export-bundle';
import { insertAnchor, insertReceipts, ledgerFileIn, openLedger, type NewReceipt } from '../ledger';
import { createTrustStore } from '../trust';

/** The network name the records carry (the embedded chain's). */
export const TEST_NETWORK = 'anvil-local';
/** The batch the records belong to. */
export const TEST_BATCH_ID = '2026-11-23T09:00Z';

/** A resolved anchor record as plain JSON. */
export type TestAnchorRecord = Record<string, unknown> & {
  svc_anchor: string;
  merkle_root: string;
  merkle_path: string[];
  block_height: number;
  tx_hash: string;
};

/** An anchor account with funds on a development chain. */
export async function fundedAnchorAccount(chain: ChainClient): Promise<ReturnType<typeof anchorAccount>> {
  const account = anchorAccount(`0x${randomBytes(32).toString('hex')}`);
  await chain.fundOnDevelopmentChain(account.address);
  return account;
}

/**
 * Posts a batch's root as the anchor transaction and waits until it is mined.
 *
 * @param chain - The chain client.
 * @param account - The anchor account (funded).
 * @param digests - The batch's digests (canonical_sha256 bytes).
 * @param nonce - The account's next nonce.
 * @param batchId - The records' batch id.
 * @returns Each digest's resolved record (in the digests' order), the transaction hash and block.
 */
export async function postAnchorBatch(
  chain: ChainClient,
  account: ReturnType<typeof anchorAccount>,
  digests: readonly Uint8Array[],
  nonce: number,
  batchId = TEST_BATCH_ID,
): Promise<{ records: TestAnchorRecord[]; hash: string; height: number }> {
  const sha256 = createNodeCryptoProvider().sha256;
  const { root, paths } = anchorTree(sha256, digests);
  const signed = await chain.signAnchorTransaction(account, root, nonce);
  await chain.broadcast(signed.raw);
  let tx = await chain.transaction(signed.hash);
  for (let tries = 0; tx?.blockNumber === null || tx === undefined; tries += 1) {
    if (tries > 250) throw new Error('the anchor transaction was not mined');
    await new Promise((resolve) => setTimeout(resolve, 20));
    tx = await chain.transaction(signed.hash);
  }
  const height = tx.blockNumber as number;
  const records = digests.map((digest, index) => ({
    svc_anchor: resolvedAnchorUrn({
      network: TEST_NETWORK,
      block_height: height,
      tx_hash: signed.hash,
      suffix: anchorSuffix(digest),
    }),
    batch_id: batchId,
    network: TEST_NETWORK,
    block_height: height,
    tx_hash: signed.hash,
    merkle_root: encodeAnchorHash(root),
    merkle_path: (paths[index] as Uint8Array[]).map(encodeAnchorHash),
    verified_at: '2026-11-23T09:01:00Z',
  }));
  return { records, hash: signed.hash, height };
}

/** Options of {@link buildAnchoredBundle}. */
export interface AnchoredBundleOptions {
  out: string;
  chain: ChainClient;
  account: ReturnType<typeof anchorAccount>;
  /** The account's next nonce. */
  nonce: number;
  /** Receipts in the bundle, all in one batch (default 6). */
  receipts?: number;
  /** Changes the records before they are stored (in receipt order, with the receipts' digests): tests tamper here. */
  tamper?: (records: TestAnchorRecord[], digests: readonly Uint8Array[]) => void;
}

/** What {@link buildAnchoredBundle} wrote. */
export interface AnchoredBundle {
  file: string;
  /** hex receipt_sha256 of each receipt, in order. */
  receipts: string[];
  /** The records as stored in the bundle (after tampering). */
  records: TestAnchorRecord[];
  hash: string;
  height: number;
}

/**
 * Builds a signed evidence bundle of real profile receipts anchored in one batch on the chain.
 *
 * @param options - Where, which chain and account, how many receipts, what to tamper.
 * @returns The zip and the records it carries.
 */
export async function buildAnchoredBundle(options: AnchoredBundleOptions): Promise<AnchoredBundle> {
  const count = options.receipts ?? 6;
  const seed = new Uint8Array(32).fill(0x61);
  const keyId = 'did:svc:anchored-receipts:k1';
  const crypto = createNodeCryptoProvider();
  const issuer: KeyEntry = { key_id: keyId, algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(seed) };
  const home = mkdtempSync(join(tmpdir(), 'evroom-anchored-'));
  const ledger = openLedger(ledgerFileIn(home));
  try {
    createTrustStore(ledger).recordAdvertised([issuer], 'anchored fixture issuer');
    const context: VerifyContext = { crypto, pinned: [], advertised: [issuer], secrets: [], now: new Date() };
    const receipts: NewReceipt[] = [];
    for (let index = 0; index < count; index += 1) {
      const document = issueProfileReceipt(
        'standard',
        {
          agent_did: 'did:web:agent.example.com',
          content: {
            sha256: hexEncode(
              crypto.sha256(new TextEncoder().encode(`anchored document ${index} ${randomBytes(8).toString('hex')}`)),
            ),
            type: 'text/plain',
          },
          smsh: { sealed: false, declaration: 'none' },
          hktn_context: { reputation_tier: 'silver' },
        },
        seed,
        keyId,
        crypto,
        { now: new Date(Date.parse('2026-11-23T08:00:00Z') + index * 60_000) },
      );
      const bytes = new TextEncoder().encode(JSON.stringify(document));
      const facts = verifyReceiptBytes(bytes, context);
      receipts.push({
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        source: { kind: 'file', ref: `anchored-${index}.json` },
      });
    }
    ledger.runInTransaction((database) => insertReceipts(database, receipts));
    const digests = receipts.map((receipt) => hexDecode(receipt.receipt_sha256));
    const posted = await postAnchorBatch(options.chain, options.account, digests, options.nonce);
    options.tamper?.(posted.records, digests);
    ledger.runInTransaction((database) => {
      posted.records.forEach((record, index) => {
        insertAnchor(database, {
          svc_anchor: record.svc_anchor,
          batch_id: TEST_BATCH_ID,
          receipt_sha256: (receipts[index] as NewReceipt).receipt_sha256,
          record,
          status: 'resolved',
        });
      });
    });
    const result = await exportBundle(ledger, {
      out: options.out,
      dataDirectory: home,
      tenantId: 'anchored-corp',
      overwrite: true,
    });
    return {
      file: result.file,
      receipts: receipts.map((receipt) => receipt.receipt_sha256),
      records: posted.records,
      hash: posted.hash,
      height: posted.height,
    };
  } finally {
    ledger.close();
    rmSync(home, { recursive: true, force: true });
  }
}
