/**
 * The SQLite adapter of evidence.ts: the ledger's own repositories over a read snapshot of the
 * ledger file (openReadSnapshot), the same view the export has always read. The SQLite export
 * itself keeps its path (`exportPath: 'ledger-file'`: src-main/evidence opens its snapshot, on
 * the export worker for the HTTP route); {@link EvidenceStore.snapshot} reads that same view for
 * the callers that go through the store.
 */
import { checkInteger } from '../checks';
import { openReadSnapshot } from '../open-ledger';
import { getReceipt } from '../receipts';
import type { SqliteStoreDeps } from './deps';
import {
  checkEvidenceHashes,
  checkEvidenceRange,
  checkEvidenceTenant,
  MAX_EVIDENCE_ANCHOR_HASHES,
  MAX_EVIDENCE_HASH_PAGE,
  MAX_EVIDENCE_PAGE,
  type EvidenceAnchor,
  type EvidenceReader,
  type EvidenceReceipt,
  type EvidenceStore,
} from './evidence';
import type { ReadableDB } from '../database';
import { listAnchors } from '../anchors';
import { getTenant } from '../service-state';
import {
  getTlogCheckpoint,
  latestTlogCheckpoint,
  listTlogCosignatures,
  listTlogLeaves,
  listTlogReceiptSha256,
  readTlogNodes,
  tlogLastIndexBefore,
  tlogPeriodIndices,
} from '../tlog';

/** better-sqlite3's Buffers as plain Uint8Arrays (the same memory), as the PostgreSQL adapter answers. */
function plainBytes(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function readerOver(readable: ReadableDB, tenant: string): EvidenceReader {
  const run = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  };
  return {
    checkpoint: () => run(() => latestTlogCheckpoint(readable, tenant)),
    checkpointAt: (size) => run(() => getTlogCheckpoint(readable, tenant, checkInteger(size, 'size'))),
    cosignatures: (size) => run(() => listTlogCosignatures(readable, tenant, checkInteger(size, 'size'))),
    periodIndices: (size, period) => run(() => tlogPeriodIndices(readable, tenant, size, period)),
    lastIndexBefore: (size, before) => run(() => tlogLastIndexBefore(readable, tenant, size, before)),
    leafReceipts: (from, to) =>
      run(() => {
        checkEvidenceRange(from, to, MAX_EVIDENCE_PAGE);
        return listTlogLeaves(readable, tenant, from, to).map((leaf): EvidenceReceipt => {
          const stored = getReceipt(readable, leaf.receipt);
          if (stored === undefined)
            throw new Error(`Receipt row ${leaf.receipt} of the log is missing from the ledger.`);
          return {
            leaf_index: leaf.leaf_index,
            receipt_sha256: stored.receipt_sha256,
            receipt_id: stored.receipt_id,
            issuer_key_id: stored.issuer_key_id,
            format: stored.format,
            raw: plainBytes(stored.raw),
            issued_at: stored.issued_at,
          };
        });
      }),
    leafHashes: (from, to) =>
      run(() => {
        checkEvidenceRange(from, to, MAX_EVIDENCE_HASH_PAGE);
        return listTlogReceiptSha256(readable, tenant, from, to);
      }),
    nodes: (level, from, to) =>
      run(() =>
        readTlogNodes(readable, tenant, level, from, to).map((node) => ({
          index: node.index,
          hash: plainBytes(node.hash),
        })),
      ),
    anchors: (hashes) =>
      run(() => {
        const list = checkEvidenceHashes(hashes, MAX_EVIDENCE_ANCHOR_HASHES);
        const out: EvidenceAnchor[] = [];
        for (const receiptSha256 of list)
          for (const anchor of listAnchors(readable, { receipt_sha256: receiptSha256, limit: 1000 }).rows)
            out.push({ batch_id: anchor.batch_id, receipt_sha256: anchor.receipt_sha256, record: anchor.record });
        return out;
      }),
  };
}

/** The evidence domain on SQLite. */
export function sqliteEvidence(deps: SqliteStoreDeps): EvidenceStore {
  const { ledger } = deps;
  return {
    exportPath: 'ledger-file',
    hasTenant(tenantId) {
      try {
        return Promise.resolve(getTenant(ledger.readable, checkEvidenceTenant(tenantId)) !== undefined);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    async snapshot(tenantId, fn) {
      const tenant = checkEvidenceTenant(tenantId);
      const snapshot = openReadSnapshot(ledger.file);
      try {
        return await fn(readerOver(snapshot.readable, tenant));
      } finally {
        snapshot.close();
      }
    },
  };
}
