/**
 * The implementation of the app API contract (src-shared/api), shared by IPC and local HTTP.
 *
 * One dispatcher checks the method name against the contract and validates the input with the
 * contract's validator before any handler runs; handlers then work on typed input. The ledger
 * is opened on first use, in the data directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APP_API,
  ApiInputError,
  isAppApiMethod,
  type AdvertisedKey,
  type AppApiInput,
  type AppApiMethod,
  type AppApiResults,
  type AppInfo,
  type AuditEntry,
  type BundleSummary,
  type PinnedKey,
  type ReceiptFilters,
  type ReceiptRow,
  type Settings,
} from '../../src-shared/api/contract';
import { b64uDecode, b64uEncode, utf8Decode } from '../../src-shared/crypto';
import type { VerifyContext } from '../../src-shared/verify/context';
import { signedContent } from '../../src-shared/verify/signed-content';
import { pinnedTrust } from '../../src-shared/verify/keys';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { verifyReceiptBytes } from '../core/receipt-facts';
import { advertisedEntries, reevaluateTrust } from '../core/reevaluate-trust';
import { exportBundle } from '../evidence/export-bundle';
import { buildSamples } from '../cli/commands/samples';
import {
  appendAudit,
  countReceipts,
  getBundle,
  getReceipt,
  insertReceipts,
  ledgerFileIn,
  ledgerStats,
  listAuditEntries,
  listBundles,
  listReceipts,
  openLedger,
  type Ledger,
  type ReceiptFilters as LedgerFilters,
  type ReceiptSummary,
} from '../ledger';
import { createTrustStore, type TrustedKey, type TrustStore } from '../trust';
import { APP_VERSION } from '../version';
import { createImportJobs } from './import-jobs';
import { readSettings, writeSettings } from './settings-store';

export { ApiInputError };

/** Audit actions that record trust decisions. */
const TRUST_ACTIONS = new Set(['pin', 'unpin', 'revoke', 'label', 'validity']);

export interface AppApiOptions {
  mode: AppInfo['mode'];
  dataDirectory: string;
}

/** A method not in the contract. */
export class UnknownMethodError extends Error {
  readonly code = 'not_found';
  readonly httpStatus = 404;
  constructor(method: string) {
    super(`unknown app API method '${method}'`);
    this.name = 'UnknownMethodError';
  }
}

/** A thing the caller named does not exist (HTTP 404). */
export class NotFoundError extends Error {
  readonly code = 'not_found';
  readonly httpStatus = 404;
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

/** A request the app understood but refuses, with the library's code (HTTP 409/422). */
class RefusedError extends Error {
  readonly httpStatus = 422;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RefusedError';
  }
}

/** Errors from our libraries that describe the caller's input become 4xx with their message. */
function asUserError(error: unknown): never {
  if (error instanceof Error && (error.name === 'TrustError' || error.name === 'LedgerError' || error.name === 'BundleError' || error.name === 'ExportError' || error instanceof RangeError || error instanceof TypeError)) {
    throw new RefusedError((error as { code?: string }).code ?? 'invalid_request', error.message);
  }
  throw error;
}

export type AppApiDispatcher = ((method: string, input: unknown) => Promise<unknown>) & { close(): void };

function toRow(summary: ReceiptSummary): ReceiptRow {
  return {
    id: summary.id,
    receipt_sha256: summary.receipt_sha256,
    format: summary.format,
    receipt_id: summary.receipt_id,
    issuer_key_id: summary.issuer_key_id,
    issued_at: summary.issued_at,
    imported_at: summary.imported_at,
    status: summary.status,
    trust: summary.trust,
  };
}

function toLedgerFilters(filters: ReceiptFilters): LedgerFilters {
  const out: LedgerFilters = {};
  if (filters.format !== undefined) out.format = filters.format;
  if (filters.status !== undefined) out.status = filters.status;
  if (filters.trust !== undefined) out.trust = filters.trust;
  if (filters.issuer !== undefined) out.issuer = filters.issuer;
  if (filters.from !== undefined) out.from = Date.parse(filters.from);
  if (filters.to !== undefined) out.to = Date.parse(filters.to);
  if (filters.text !== undefined) out.text = filters.text;
  if (filters.bundle !== undefined) out.source = { kind: 'bundle', ref: String(filters.bundle) };
  return out;
}

function toPinned(key: TrustedKey, now: Date): PinnedKey {
  const judged = pinnedTrust({ key_id: key.key_id, algorithm: key.algorithm, public_key: key.public_key, status: key.status, ...(key.not_before ? { not_before: key.not_before } : {}), ...(key.not_after ? { not_after: key.not_after } : {}) }, now);
  return {
    key_id: key.key_id,
    algorithm: key.algorithm,
    public_key: b64uEncode(key.public_key),
    ...(key.label ? { label: key.label } : {}),
    ...(key.not_before ? { not_before: key.not_before } : {}),
    ...(key.not_after ? { not_after: key.not_after } : {}),
    status: key.status,
    effective: judged.status === 'trusted' ? 'trusted' : judged.status === 'revoked' ? 'revoked' : 'expired',
    source: key.source,
    added_at: key.added_at,
    ...(key.revoked_at ? { revoked_at: key.revoked_at } : {}),
    ...(key.revocation_reason ? { revocation_reason: key.revocation_reason } : {}),
  };
}

function toBundle(summary: { id: number; bundle_sha256: string; file_name: string | null; tenant_id: string | null; generated_at: number | null; imported_at: number; status: 'partial' | 'complete'; signature: unknown; counts: unknown }): BundleSummary {
  return {
    id: summary.id,
    bundle_sha256: summary.bundle_sha256,
    file_name: summary.file_name,
    tenant_id: summary.tenant_id,
    generated_at: summary.generated_at,
    imported_at: summary.imported_at,
    status: summary.status,
    signature: summary.signature,
    counts: summary.counts,
  };
}

/**
 * Creates the dispatcher: validates the method name and the input, then runs the method.
 *
 * @returns a function taking the untrusted method name and input, with `close()` for shutdown
 */
export function createAppApi(options: AppApiOptions): AppApiDispatcher {
  const crypto = createNodeCryptoProvider();
  const jobs = createImportJobs();
  let opened: { ledger: Ledger; trust: TrustStore } | undefined;

  function store(): { ledger: Ledger; trust: TrustStore } {
    if (!opened) {
      mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
      const ledger = openLedger(ledgerFileIn(options.dataDirectory));
      opened = { ledger, trust: createTrustStore(ledger) };
    }
    return opened;
  }

  function verifyContext(): VerifyContext {
    const { trust } = store();
    return { crypto, pinned: trust.pinnedEntries(), advertised: advertisedEntries(trust), secrets: [], now: new Date() };
  }

  function settings(): Settings {
    const stored = readSettings(options.dataDirectory);
    return { dataDirectory: options.dataDirectory, ...stored };
  }

  function startImport(file: string, fileName: string, cleanup?: () => void) {
    const { limits } = readSettings(options.dataDirectory);
    return jobs.start(store().ledger, file, fileName, { limits: { maxEntries: limits.maxEntries, maxBytes: limits.maxBytes, maxRatio: limits.maxRatio } }, cleanup);
  }

  function afterTrustChange(key: { key_id: string; algorithm?: string; public_key?: Uint8Array }): void {
    const { ledger, trust } = store();
    reevaluateTrust(ledger, trust, crypto, key);
  }

  const handlers: { [M in AppApiMethod]: (input: AppApiInput<M>) => Promise<AppApiResults[M]> | AppApiResults[M] } = {
    info: () => ({ name: 'Evidence Room', version: APP_VERSION, mode: options.mode, dataDirectory: options.dataDirectory }),

    overview: () => {
      const { ledger, trust } = store();
      const stats = ledgerStats(ledger.readable);
      const attention = [
        ...listReceipts(ledger.readable, { filters: { trust: 'revoked' }, limit: 5 }).rows,
        ...(['MISMATCH', 'INVALID', 'AUTH_FAILED', 'MALFORMED', 'UNSUPPORTED', 'INDETERMINATE'] as const).flatMap((status) => listReceipts(ledger.readable, { filters: { status }, limit: 5 }).rows),
      ]
        .sort((a, b) => b.imported_at - a.imported_at || b.id - a.id)
        .filter((row, index, rows) => rows.findIndex((other) => other.id === row.id) === index)
        .slice(0, 10)
        .map(toRow);
      return {
        receipts: stats.receipts,
        byFormat: Object.entries(stats.byFormat)
          .map(([value, count]) => ({ value, count }))
          .sort((a, b) => b.count - a.count),
        byStatus: stats.byStatus,
        byTrust: stats.byTrust,
        bundles: stats.bundles,
        pinnedKeys: trust.list().filter((key) => key.status === 'pinned').length,
        recentImports: listBundles(ledger.readable, { limit: 5 }).rows.map(toBundle),
        attention,
      };
    },

    'receipts.list': (input) => {
      const { ledger } = store();
      try {
        const page = listReceipts(ledger.readable, {
          filters: toLedgerFilters(input.filters),
          ...(input.sort ? { sort: { column: input.sort, direction: input.direction ?? 'desc' } } : {}),
          ...(input.after ? { after: input.after } : {}),
          limit: input.limit ?? 100,
        });
        return { rows: page.rows.map(toRow), nextCursor: page.nextCursor };
      } catch (error) {
        return asUserError(error);
      }
    },

    'receipts.count': (input) => ({ count: countReceipts(store().ledger.readable, toLedgerFilters(input.filters)) }),

    'receipts.get': (input) => {
      const stored = getReceipt(store().ledger.readable, input.id);
      if (!stored) throw new NotFoundError(`There is no receipt ${input.id} in the ledger.`);
      let raw: string;
      try {
        raw = utf8Decode(stored.raw);
      } catch {
        raw = '(not UTF-8 text)';
      }
      return {
        ...toRow(stored),
        report: stored.report,
        raw,
        signed: signedContent(stored.format, stored.raw, crypto),
        sources: stored.sources.map((source) => ({
          kind: source.kind,
          ref: source.ref,
          imported_at: source.imported_at,
          ...(source.kind === 'bundle' && /^\d+$/.test(source.ref) ? { bundle_id: Number(source.ref) } : {}),
        })),
        anchor: null,
      };
    },

    verify: (input) => {
      const bytes = new TextEncoder().encode(input.text);
      const facts = verifyReceiptBytes(bytes, verifyContext());
      if (!input.save) return { report: facts.report };
      const { ledger } = store();
      const [inserted] = ledger.runInTransaction((database) =>
        insertReceipts(database, [
          {
            receipt_sha256: facts.receipt_sha256,
            raw: bytes,
            report: facts.report,
            receipt_id: facts.receipt_id,
            issued_at: facts.issued_at,
            source: { kind: 'paste', ref: input.name ?? 'pasted in the app' },
          },
        ]),
      );
      return { report: facts.report, ...(inserted ? { saved: { id: inserted.id, created: inserted.created } } : {}) };
    },

    'bundles.list': () => listBundles(store().ledger.readable, { limit: 1000 }).rows.map(toBundle),

    'bundles.get': (input) => {
      const bundle = getBundle(store().ledger.readable, input.id);
      if (!bundle) throw new NotFoundError(`There is no bundle ${input.id} in the ledger.`);
      let manifest: unknown = null;
      try {
        manifest = JSON.parse(bundle.manifest_json);
      } catch {
        manifest = bundle.manifest_json;
      }
      return { ...toBundle(bundle), manifest, findings: bundle.findings };
    },

    'imports.start': (input) => {
      if (input.path !== undefined) return startImport(input.path, input.name ?? input.path.split(/[\\/]/).pop() ?? input.path);
      const directory = mkdtempSync(join(tmpdir(), 'evroom-upload-'));
      const file = join(directory, 'bundle.zip');
      let bytes: Uint8Array;
      try {
        bytes = b64uDecode(input.data ?? '');
      } catch {
        rmSync(directory, { recursive: true, force: true });
        throw new ApiInputError('data is not valid base64url');
      }
      writeFileSync(file, bytes, { mode: 0o600 });
      return startImport(file, input.name ?? 'uploaded bundle.zip', () => rmSync(directory, { recursive: true, force: true }));
    },

    'imports.progress': (input) => {
      const progress = jobs.progress(input.jobId);
      if (!progress) throw new NotFoundError(`There is no import job ${input.jobId}.`);
      return progress;
    },

    'imports.cancel': (input) => {
      const progress = jobs.cancel(input.jobId);
      if (!progress) throw new NotFoundError(`There is no import job ${input.jobId}.`);
      return progress;
    },

    'trust.list': () => {
      const { trust } = store();
      const now = new Date();
      const advertised: AdvertisedKey[] = trust.listAdvertised().map((key) => ({
        key_id: key.key_id,
        algorithm: key.algorithm,
        public_key: b64uEncode(key.public_key),
        source: key.source,
        added_at: key.added_at,
        contradictsTrustStore: key.contradictsTrustStore,
      }));
      return { pinned: trust.list().map((key) => toPinned(key, now)), advertised };
    },

    'trust.pin': (input) => {
      const { trust } = store();
      let publicKey: Uint8Array;
      try {
        publicKey = b64uDecode(input.public_key);
      } catch {
        throw new ApiInputError('public_key must be base64url without padding');
      }
      try {
        const { key } = trust.pin({
          key_id: input.key_id,
          algorithm: input.algorithm,
          public_key: publicKey,
          ...(input.label ? { label: input.label } : {}),
          ...(input.not_before ? { not_before: input.not_before } : {}),
          ...(input.not_after ? { not_after: input.not_after } : {}),
        });
        afterTrustChange(key);
        return toPinned(key, new Date());
      } catch (error) {
        return asUserError(error);
      }
    },

    'trust.revoke': (input) => {
      const { trust } = store();
      try {
        const key = trust.revoke(input.key_id, input.reason);
        afterTrustChange(key);
        return toPinned(key, new Date());
      } catch (error) {
        return asUserError(error);
      }
    },

    'trust.unpin': (input) => {
      const { trust } = store();
      const key = trust.get(input.key_id);
      if (!key) throw new NotFoundError(`The key ${input.key_id} is not in the trust store.`);
      try {
        trust.unpin(input.key_id);
      } catch (error) {
        return asUserError(error);
      }
      afterTrustChange(key);
      return { key_id: input.key_id, removed: true as const };
    },

    'trust.audit': (input) => {
      // Trust decisions are a few rows among many imports and exports: walk the whole log (it is
      // append-only and small per action) and keep the newest `limit` trust rows.
      const { ledger } = store();
      const trustRows: AuditEntry[] = [];
      let afterId = 0;
      for (;;) {
        const page = listAuditEntries(ledger.readable, { direction: 'asc', afterId, limit: 1000 });
        for (const entry of page) {
          if (TRUST_ACTIONS.has(entry.action) || entry.action.startsWith('trust')) {
            trustRows.push({ id: entry.id, at: entry.at, action: entry.action, subject: entry.subject, details: entry.details });
          }
        }
        const last = page.at(-1);
        if (page.length < 1000 || last === undefined) break;
        afterId = last.id;
      }
      return trustRows.slice(-input.limit).reverse();
    },

    'settings.get': () => settings(),

    'settings.set': (input) => {
      const current = readSettings(options.dataDirectory);
      const next = { theme: input.theme ?? current.theme, limits: { ...current.limits, ...input.limits } };
      mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
      writeSettings(options.dataDirectory, next);
      return settings();
    },

    'exports.create': async (input) => {
      const directory = join(options.dataDirectory, 'exports');
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const safeName = (input.name ?? `evidence-${new Date().toISOString().replace(/[:.]/g, '-')}`).replace(/[^A-Za-z0-9._-]/g, '_');
      const out = join(directory, safeName.endsWith('.zip') ? safeName : `${safeName}.zip`);
      try {
        const result = await exportBundle(store().ledger, { out, dataDirectory: options.dataDirectory, filters: toLedgerFilters(input.filters) });
        return { path: result.file, receipts: result.receipts };
      } catch (error) {
        return asUserError(error);
      }
    },

    'samples.load': () => {
      // The labelled samples of `evroom samples` (every format: valid, tampered, forged, …) as demo
      // data. Their signers' keys are recorded as advertised: they verify, and confer no trust.
      const set = buildSamples();
      const { ledger, trust } = store();
      trust.recordAdvertised(set.keys, 'samples');
      const context: VerifyContext = { ...verifyContext(), secrets: set.secrets };
      const documents = set.files.map((sample) => {
        const raw = new TextEncoder().encode(sample.text);
        const facts = verifyReceiptBytes(raw, context);
        return { receipt_sha256: facts.receipt_sha256, raw, report: facts.report, receipt_id: facts.receipt_id, issued_at: facts.issued_at, source: { kind: 'file' as const, ref: `samples/${sample.file}` } };
      });
      const inserted = ledger.runInTransaction((database) => {
        const rows = insertReceipts(database, documents);
        appendAudit(database, 'import', 'built-in samples', { receipts: rows.length, new: rows.filter((row) => row.created).length });
        return rows;
      });
      const created = inserted.filter((row) => row.created).length;
      return {
        jobId: 'samples',
        state: 'done' as const,
        fileName: 'built-in samples',
        phase: 'done',
        filesRead: documents.length,
        filesTotal: documents.length,
        receiptsVerified: documents.length,
        receiptsTotal: documents.length,
        perSecond: 0,
        secondsLeft: 0,
        result: { receipts: documents.length, receiptsNew: created, receiptsKnown: documents.length - created },
      };
    },
  };

  const dispatch = (async (method: string, input: unknown) => {
    if (!isAppApiMethod(method)) throw new UnknownMethodError(method);
    const validated = APP_API[method](input) as never;
    return (handlers[method] as (value: never) => unknown)(validated);
  }) as AppApiDispatcher;
  dispatch.close = () => {
    opened?.ledger.close();
    opened = undefined;
  };
  return dispatch;
}
