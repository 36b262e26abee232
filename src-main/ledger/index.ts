/**
 * The ledger: the one place that talks to SQLite.
 *
 * Open it with {@link openLedger}; pass `ledger.readable` to functions that read and
 * `ledger.writable` (or the handle `runInTransaction` gives) to functions that write.
 *
 * @example
 * const ledger = openLedger(ledgerFileIn(resolveDataDirectory()));
 * ledger.runInTransaction((db) => {
 *   insertReceipts(db, batch);
 *   appendAudit(db, 'import', file, { receipts: batch.length });
 * });
 * const page = listReceipts(ledger.readable, { filters: { status: 'PASS' }, limit: 100 });
 * ledger.close();
 */
export { LedgerError, type LedgerErrorCode } from './errors';
export { explainQueryPlan, ledgerGeneration, type ReadableDB, type WritableDB, type WriteResult } from './database';
export { APP_NAME, LEDGER_FILE_NAME, ledgerFileIn, resolveDataDirectory, userDataDirectory } from './data-directory';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  DEFAULT_CACHE_MIB,
  openLedger,
  openLedgerReadOnly,
  openReadSnapshot,
  type Ledger,
  type OpenLedgerOptions,
  type ReadOnlyLedger,
} from './open-ledger';
export { checkMigrations, readSchemaVersion } from './migrate';
export { MIGRATIONS, LEDGER_APPLICATION_ID, type Migration } from './migrations/index';
export {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  RECEIPT_SORT_COLUMNS,
  RECEIPT_STATUSES,
  TRUST_STATUSES,
  anchorStateCounts,
  countReceipts,
  findReceiptsByDocumentId,
  findSourcedReceiptsByName,
  getReceipt,
  insertReceipts,
  listReceipts,
  updateReceiptReport,
  type InsertedReceipt,
  type ListReceiptsQuery,
  type NewReceipt,
  type ReceiptFilters,
  type ReceiptPage,
  type ReceiptRecord,
  type ReceiptSortColumn,
  type ReceiptSummary,
  type SortDirection,
} from './receipts';
export {
  SOURCE_KINDS,
  addReceiptSource,
  listReceiptSources,
  type ReceiptSource,
  type ReceiptSourceRecord,
  type SourceKind,
} from './receipt-sources';
export {
  BUNDLE_STATUSES,
  getBundle,
  insertBundle,
  listBundles,
  updateBundle,
  type BundleRecord,
  type BundleStatus,
  type BundleSummary,
  type NewBundle,
} from './bundles';
export {
  KEY_ALGORITHMS,
  KEY_STATUSES,
  MAX_KEY_ID_LENGTH,
  PUBLIC_KEY_LENGTHS,
  countKeys,
  deleteTrustedKey,
  getTrustedKey,
  insertAdvertisedKey,
  insertTrustedKey,
  listAdvertisedKeys,
  listTrustedKeys,
  updateTrustedKey,
  type KeyFields,
  type KeyRecord,
  type KeyStatus,
  type TrustStoreStatus,
} from './keys';
export {
  ANCHOR_STATUSES,
  getAnchor,
  insertAnchor,
  listAnchors,
  resolveAnchor,
  type AnchorRecord,
  type AnchorStatus,
  type NewAnchor,
} from './anchors';
export {
  MAX_ANCHOR_PAGE,
  anchorStateTotals,
  anchorsOfReceipt,
  getAnchorState,
  listAnchorBatches,
  listAnchorStates,
  recordAnchorCheck,
  uncheckedAnchors,
  type AnchorBatchRecord,
  type AnchorStateRecord,
  type UncheckedAnchor,
} from './anchor-checks';
export {
  AUDIT_ACTIONS,
  GENESIS_SHA256,
  appendAudit,
  auditRowHash,
  checkAuditChain,
  listAuditEntries,
  type AuditChainCheck,
  type AuditEntry,
  type KnownAuditAction,
} from './audit-log';
export { ledgerStats, unpinnedIssuers, type IssuerCount, type LedgerStats, type UnpinnedIssuers } from './stats';
export {
  consumeQuota,
  findApiKey,
  getTenant,
  insertApiKey,
  insertTenant,
  listApiKeys,
  listTenants,
  quotaUsed,
  recordWearableNonce,
  revokeApiKey,
  type ApiKeyRecord,
  type TenantRecord,
} from './service-state';
export {
  FINAL_NO_KEY_STATES,
  MAX_PAYMENT_LIST,
  advancePaymentCursor,
  dueDeliveries,
  findPaymentsByTx,
  getPayment,
  getPaymentCursor,
  getSealedEnvelope,
  hasPaymentKey,
  listPaymentRecords,
  markDelivered,
  markPaymentIssued,
  movePendingPayment,
  recordDeliveryFailure,
  recordPayment,
  setTenantPaidUntil,
  settlePayment,
  tenantPaidUntil,
  tenantPaymentContact,
  unconfirmedPayments,
  type NewPayment,
  type PaymentRecord,
} from './payments';
export {
  MAX_SEEN_NOTE,
  MAX_SEEN_ORIGIN,
  MAX_SEEN_SOURCE,
  listBundlesOfLog,
  listConsistencyResults,
  listSeenCheckpoints,
  listSeenOrigins,
  recordConsistencyResult,
  recordSeenCheckpointRow,
  type ConsistencyResultRecord,
  type LogBundleRecord,
  type NewConsistencyResult,
  type NewSeenCheckpoint,
  type SeenCheckpointRecord,
} from './seen-checkpoints';
export {
  MAX_TLOG_COSIGNATURES,
  MAX_TLOG_NOTE_LENGTH,
  appendTlogLeaves,
  getTlogCheckpoint,
  insertTlogCheckpoint,
  insertTlogCosignature,
  lastSignedTlogCheckpoint,
  latestTlogCheckpoint,
  listTlogCheckpoints,
  listTlogCosignatures,
  listTlogLeaves,
  listTlogReceiptRows,
  listTlogReceiptSha256,
  readTlogNodes,
  tlogQueries,
  tlogLastIndexBefore,
  tlogNodeSource,
  tlogPeriodIndices,
  tlogSize,
  tlogsToSign,
  type TlogCheckpointRecord,
  type TlogCosignatureRecord,
  type TlogLeafRecord,
} from './tlog';
