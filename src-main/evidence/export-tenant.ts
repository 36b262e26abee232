/**
 * A served tenant's evidence bundle written from the service store's snapshot (issue 27;
 * docs/logs.md "The service's log", docs/deploy.md): the same zip `exportBundle` writes from the
 * ledger file with the `log` option (its receipts, anchors, log files, keys, manifest and
 * signature), read through an `EvidenceReader` (src-main/ledger/store/evidence.ts) so that it
 * comes from PostgreSQL as well as from SQLite.
 *
 * The whole bundle is read in the one snapshot the store gives (on PostgreSQL, a repeatable-read
 * transaction): receipts issued through any node while it is written are not in it, and its
 * receipts, proofs and checkpoint agree. The receipts are read a page of leaves at a time, with
 * their bytes, and handed to the zip writer as it makes room, so memory holds a page, never the
 * period.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { utf8Encode } from '../../src-shared/crypto';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import type { EvidenceReader, EvidenceStore } from '../ledger/store/evidence';
import { receiptPath } from './bundle-layout';
import { BundleError } from './errors';
import {
  addBundleTail,
  checkExportOptions,
  exportAuditDetails,
  reportExportDone,
  DEFAULT_EXPORT_TENANT,
  envelopeRoleKeyIds,
  ExportError,
  startBundle,
  type BundleOptions,
  type ExportOptions,
  type ExportResult,
  type KnownKey,
} from './export-bundle';
import { hashFile } from './hash-file';
import { DEFAULT_ZIP_LIMITS } from './limits';
import { LOG_CHECKPOINT_NAME, LOG_PROOFS_NAME, readSnapshotLogEvidence } from './log-evidence';
import type { ManifestFile } from './manifest';
import type { ExportProgress } from './progress';
import { createZipWriter } from './zip-writer';

/** Leaves whose receipts are read per page. */
const PAGE_LEAVES = 500;

/** Options of {@link exportTenantSnapshot}. */
export type TenantSnapshotOptions = Omit<BundleOptions, 'filters' | 'log' | 'tenantId'> & {
  tenantId: string;
  log: NonNullable<ExportOptions['log']>;
  /**
   * The key an issuer id names, as the node's trust store knows it (listed in the keys file, as
   * exportBundle lists the pinned or advertised keys of its ledger); none when omitted.
   */
  knownKey?: (keyId: string) => KnownKey | undefined;
  onProgress?: (event: ExportProgress) => void;
};

/**
 * Writes a served tenant's evidence bundle from one snapshot of the store.
 *
 * @param store - The store's evidence domain (any engine).
 * @param options - As exportBundle's with `log`; `tenantId` is the log's tenant.
 * @returns What was written (the caller records the audit row).
 * @throws ExportError out_exists / out_unwritable; LogEvidenceError (no checkpoint, a size never
 *   signed); BundleError zip_entry_too_large for a period past the import's limit (nothing
 *   written); StoreUnavailableError when the database cannot be reached
 */
export function exportTenantSnapshot(
  store: Pick<EvidenceStore, 'snapshot'>,
  options: TenantSnapshotOptions,
): Promise<ExportResult> {
  const { onProgress, knownKey, ...rest } = options;
  checkExportOptions(rest);
  if (rest.log.tenantId !== rest.tenantId)
    throw new RangeError('exportTenantSnapshot: the log must be the tenant’s (log.tenantId = tenantId)');
  return store.snapshot(rest.tenantId, (reader) => writeFromSnapshot(reader, rest, knownKey, onProgress));
}

async function writeFromSnapshot(
  reader: EvidenceReader,
  options: Omit<TenantSnapshotOptions, 'onProgress' | 'knownKey'>,
  knownKey: ((keyId: string) => KnownKey | undefined) | undefined,
  onProgress: ((event: ExportProgress) => void) | undefined,
): Promise<ExportResult> {
  const out = path.resolve(options.out);
  const tenantId = options.tenantId ?? DEFAULT_EXPORT_TENANT;
  const now = options.now ?? new Date();
  const generatedAt = now.toISOString();
  const crypto = createNodeCryptoProvider();
  const logEvidence = await readSnapshotLogEvidence(reader, crypto.sha256, options.log);
  const range = logEvidence.range;
  const total = range === null ? 0 : range.last - range.first + 1;
  // proofs.json past the import's entry limit: refused now, not after every receipt is written.
  if (logEvidence.proofs_bytes > DEFAULT_ZIP_LIMITS.maxEntryBytes) {
    throw new BundleError(
      'zip_entry_too_large',
      `Entry ${LOG_PROOFS_NAME} would be ${logEvidence.proofs_bytes} bytes (${total} leaves), over the limit of ${DEFAULT_ZIP_LIMITS.maxEntryBytes} an import accepts; ask for a shorter period.`,
      { entry: LOG_PROOFS_NAME },
    );
  }
  if (!options.overwrite && fs.existsSync(out)) {
    throw new ExportError('out_exists', `${out} exists; choose another name or allow overwriting.`);
  }
  const { key, keyCreated, progress, temporary } = startBundle(options, out, now, crypto, onProgress);
  const written = { receipts: 0, anchors: 0, keys: 0 };
  try {
    const writer = createZipWriter(temporary, { mtime: now, limits: DEFAULT_ZIP_LIMITS });
    const files: ManifestFile[] = [];
    const fields = { receiptsWritten: 0, receiptsTotal: total };
    const issuers = new Set<string>();
    const usedStems = new Set<string>();
    const anchorsByBatch = new Map<string, { receipt_sha256: string | null; record: unknown }[]>();
    let receipts = 0;
    let anchorCount = 0;
    const record = (name: string, data: Uint8Array): Uint8Array => {
      files.push({ path: name, sha256: createHash('sha256').update(data).digest('hex'), bytes: data.length });
      return data;
    };

    progress.update('writing', 0, total, fields);
    // The leaves' receipts, in leaf order, a page at a time.
    for (let from = range?.first ?? 0; range !== null && from <= range.last; from += PAGE_LEAVES) {
      const to = Math.min(range.last + 1, from + PAGE_LEAVES);
      const rows = await reader.leafReceipts(from, to);
      if (rows.length !== to - from || rows.some((row, at) => row.leaf_index !== from + at))
        throw new Error(`The log of ${tenantId} is missing leaves between ${from} and ${to - 1}.`);
      for (const row of rows) {
        const name = receiptPath(row.receipt_id, row.receipt_sha256, usedStems);
        if (row.issuer_key_id !== null) issuers.add(row.issuer_key_id);
        // An envelope names a key per role (PROTOCOL section 4): the receiving side needs each.
        if (row.format.startsWith('envelope')) for (const keyId of envelopeRoleKeyIds(row.raw)) issuers.add(keyId);
        receipts += 1;
        const raw = row.raw;
        writer.add(name, () => {
          fields.receiptsWritten += 1;
          progress.update('writing', fields.receiptsWritten, total, fields);
          return record(name, raw);
        });
      }
      for (const anchor of await reader.anchors(rows.map((row) => row.receipt_sha256))) {
        const list = anchorsByBatch.get(anchor.batch_id) ?? [];
        list.push({ receipt_sha256: anchor.receipt_sha256, record: anchor.record });
        anchorsByBatch.set(anchor.batch_id, list);
        anchorCount += 1;
      }
      await writer.waitForRoom();
    }
    const checkpointText = logEvidence.checkpoint;
    writer.add(LOG_CHECKPOINT_NAME, () => record(LOG_CHECKPOINT_NAME, utf8Encode(checkpointText)));
    // Made once the receipts are handed over, straight into one buffer: no proof is held twice.
    const proofs = await logEvidence.proofs();
    writer.add(LOG_PROOFS_NAME, () => record(LOG_PROOFS_NAME, proofs));

    written.keys = addBundleTail(writer, {
      record,
      anchorsByBatch,
      issuers,
      knownKey: knownKey ?? (() => undefined),
      key,
      logKey: options.log.key,
      manifest: { tenantId, generatedAt, receipts, anchors: anchorCount },
      files,
      onManifest: () => progress.update('finishing', fields.receiptsWritten, total, fields),
      crypto,
    });
    await writer.finish();
    fs.renameSync(temporary, out);
    written.receipts = receipts;
    written.anchors = anchorCount;
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    key.seed.fill(0);
  }

  const sha256 = await hashFile(out);
  const bytes = fs.statSync(out).size;
  return {
    file: out,
    sha256,
    bytes,
    receipts: written.receipts,
    anchors: written.anchors,
    keys: written.keys,
    key_id: key.key_id,
    keyCreated,
    tenant_id: tenantId,
    generated_at: generatedAt,
    log_tree_size: logEvidence.tree_size,
  };
}

/**
 * A served tenant's evidence from the service store, as exportBundle writes it from the ledger
 * with the `log` option: the bundle from the store's snapshot, then its `export` audit row and
 * the last progress event.
 *
 * @param store - The store's evidence domain.
 * @param options - As exportBundle's, with `log` (its tenant is the bundle's); `filters` and
 *   `worker` do not apply (the snapshot is read on the calling thread).
 * @param node - What the node itself holds: the keys its trust store knows, and where the
 *   `export` audit row goes (the service's audit log).
 * @throws as {@link exportTenantSnapshot}
 */
export async function exportTenantBundle(
  store: Pick<EvidenceStore, 'snapshot'>,
  options: Omit<ExportOptions, 'filters' | 'worker' | 'onWorkerError' | 'log'> & {
    log: NonNullable<ExportOptions['log']>;
  },
  node: {
    knownKey: (keyId: string) => KnownKey | undefined;
    audit: (action: 'export', subject: string, details: Record<string, unknown>) => Promise<unknown>;
  },
): Promise<ExportResult> {
  const started = performance.now();
  const { onProgress, ...rest } = options;
  const result = await exportTenantSnapshot(store, {
    ...rest,
    tenantId: rest.tenantId ?? rest.log.tenantId,
    knownKey: node.knownKey,
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  await node.audit('export', result.file, exportAuditDetails(rest, result));
  reportExportDone(result, started, onProgress);
  return result;
}
