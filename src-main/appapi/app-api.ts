/**
 * The implementation of the app API contract (src-shared/api), shared by IPC and local HTTP.
 *
 * A door, and a thin one: it checks the method name against the contract, validates the input
 * with the contract's validator, calls the operations layer (src-main/operations) and turns the
 * answer into the contract's typed result. Errors leave as the one envelope
 * (`{code, message, details}`) through {@link AppApiDispatcher.answer}, whichever transport
 * carries them. The workspace (ledger and trust store) is opened on first use.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  ApiInputError,
  PASSWORD_MASK,
  maskDatabaseUrl,
  type AdvertisedKey,
  type ApiKeyView,
  type AppApiAnswer,
  type AppApiInput,
  type AppApiMethod,
  type AppApiResults,
  type AppInfo,
  type ExportResult,
  type ImportProgress,
  type PinnedKey,
  type ReceiptFilters,
  type ReportSummary,
  type ServiceStatus,
  type Settings,
  type TenantView,
  type VerifyFileInput,
  type ContextPackSummary,
} from '../../src-shared/api/contract';
import { APP_API, isAppApiMethod } from '../../src-shared/api/contract-validators';
import { b64uDecode, b64uEncode } from '../../src-shared/crypto';
import { pinnedTrust } from '../../src-shared/verify/keys';
import { checkKeySources, KeyFileError, parseKeyFile, parseSecretsFile } from '../../src-shared/verify/key-file';
import type { KeyEntry } from '../../src-shared/verify/context';
import { describeError, internalLogLine, OperationError } from '../operations/errors';
import { exportEvidence } from '../operations/evidence';
import { ledgerFiltersOf } from '../operations/receipt-filters';
import {
  anchorBatches,
  anchorDetail,
  anchorLedgerCounts,
  checkAnchorOnChain,
  listAnchorRows,
  receiptAnchorDetail,
} from '../operations/anchors';
import {
  importContextPack,
  listContextPacks,
  listPinnedBlocks,
  pinBlockHash,
  removeContextPack,
  unpinBlockHash,
} from '../operations/context';
import { loadSamples } from '../operations/load-samples';
import { listLogs, logDetail } from '../operations/log-checkpoints';
import { buyKeyOnChain, developmentAccountKey } from '../operations/payment-buy';
import { listPayments } from '../operations/payments';
import { receiptExportChunk } from '../operations/receipts-export';
import {
  createReport,
  diffReports,
  listReports,
  readKeptReport,
  readVerifiedReport,
  renderKeptReport,
} from '../operations/report';
import {
  apiKeys,
  createTenant,
  issueApiKey,
  revokeKeyByPrefix,
  tenantQuotaUse,
  tenants,
} from '../operations/service-admin';
import {
  describeDatabaseUrl,
  openServiceStore,
  workspaceServiceStore,
  type ServiceStore,
} from '../operations/service-store';
import { pinKey, revokeKey, unpinKey } from '../operations/trust';
import { saveVerified, textBytes, verifyBytes } from '../operations/verify';
import { openWorkspace, workspaceVerifyContext, type VerifyExtras, type Workspace } from '../operations/workspace';
import { type ApiKeyRecord, type TenantRecord } from '../ledger';
import type { TrustedKey } from '../trust';
import { APP_VERSION } from '../version';
import {
  bundleDetail,
  bundleSummaries,
  countMatchingReceipts,
  listReceiptPage,
  overview,
  receiptDetail,
  toReceiptRow,
  trustAuditEntries,
} from '../operations/ledger-views';
import { createAnchorCheckJobs } from './anchor-check-jobs';
import { createImportJobs } from './import-jobs';
import type { ServiceControl } from './service-control';
import { readServiceDatabaseUrl, readSettings, writeServiceDatabaseUrl, writeSettings } from './settings-store';

export { ApiInputError };

export interface AppApiOptions {
  mode: AppInfo['mode'];
  dataDirectory: string;
  /** Runs the HTTP service for the Service view; without it the service methods are refused. */
  service?: ServiceControl;
  /**
   * Where the log line of an internal fault goes (its correlation id, message and stack; the
   * caller gets only `internal error (ref ID)`). Default: standard error.
   */
  log?: (line: string) => void;
}

function notFound(message: string): OperationError {
  return new OperationError('not_found', 'not_found', message);
}

/**
 * The app API of one app instance.
 *
 * Called as a function it runs one method and throws on failure (for tests and trusted callers);
 * `answer` runs one method and never throws: it gives the result or the error envelope, which
 * is what both transports carry.
 */
export type AppApiDispatcher = ((method: string, input: unknown) => Promise<unknown>) & {
  answer(method: unknown, input: unknown): Promise<AppApiAnswer>;
  /** Actions of the desktop app's own menu, on files the user chose in a system dialog. */
  desktop: DesktopActions;
  /** Files uploaded to local web mode as raw bytes (`POST /upload/<method>`), already on disk. */
  uploads: UploadActions;
  close(): void;
};

/** What local web mode does with an uploaded file (the web server streamed it to a temporary file). */
export interface UploadActions {
  /** Imports the uploaded zip as `imports.start` does; `cleanup` removes the file when the job ends. */
  importFile(file: string, name: string, cleanup: () => void): ImportProgress;
  /** Imports the uploaded context pack as `context.import` does, then removes the file (`cleanup`). */
  importContextPack(file: string, cleanup: () => void): Promise<ContextPackSummary>;
}

/** What the desktop shell does on files the user picked in its dialogs (never reachable from the renderer). */
export interface DesktopActions {
  importFile(file: string): ImportProgress;
  exportTo(file: string, filters?: ReceiptFilters): Promise<ExportResult>;
  verifyText(text: string, name: string): Promise<AppApiResults['verify']>;
}

function toReportSummary(listing: ReportSummary): ReportSummary {
  return {
    report_id: listing.report_id,
    generated_at: listing.generated_at,
    payload_sha256: listing.payload_sha256,
    receipts: listing.receipts,
    by_status: listing.by_status,
    scope: listing.scope,
  };
}

function toPinned(key: TrustedKey, now: Date): PinnedKey {
  const judged = pinnedTrust(
    {
      key_id: key.key_id,
      algorithm: key.algorithm,
      public_key: key.public_key,
      status: key.status,
      ...(key.not_before ? { not_before: key.not_before } : {}),
      ...(key.not_after ? { not_after: key.not_after } : {}),
    },
    now,
  );
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
    ...(key.roles ? { roles: [...key.roles] } : {}),
  };
}

function toApiKey(record: ApiKeyRecord): ApiKeyView {
  return {
    prefix: record.prefix,
    tenant_id: record.tenant_id,
    tier: record.tier,
    scopes: [...record.scopes],
    created_at: record.created_at,
    revoked_at: record.revoked_at,
    state: record.revoked_at === null ? 'active' : 'revoked',
  };
}

function toServiceStatus(service: ServiceControl, store: ServiceStatus['store']): ServiceStatus {
  const status = service.status();
  return {
    running: status.running,
    store,
    ...(status.running && status.url !== undefined ? { url: status.url } : {}),
    ...(status.running && status.port !== undefined ? { port: status.port } : {}),
    ...(status.running && status.payments !== undefined
      ? {
          payments: {
            network: status.payments.network,
            chainId: status.payments.chainId,
            embedded: status.payments.embedded,
            token: status.payments.token,
            treasury: status.payments.treasury,
            // Only the embedded chain's local URL: another chain's may carry credentials.
            ...(status.payments.embedded ? { rpcUrl: status.payments.rpcUrl } : {}),
          },
        }
      : {}),
    requests: status.requests.map((request) => ({
      at: request.at,
      method: request.method,
      route: request.route,
      status: request.status,
      ms: request.ms,
    })),
  };
}

/** The key, trust and secrets files a `verify` call may carry. */
type VerifyFiles = { keys?: VerifyFileInput; trust?: VerifyFileInput; secrets?: VerifyFileInput };

/** How each file is named in messages, as `evroom verify` names them. */
const VERIFY_FILE_KINDS = { keys: 'key file', trust: 'trust file', secrets: 'secrets file' } as const;

/**
 * Parses the files given to one `verify` call with the parsers `evroom verify --keys/--trust/
 * --secret` uses, and holds them to its rule: one key id, one key, across the data folder's trust
 * store and the files (PROTOCOL section 0). Trust file entries without a status count as pinned.
 * Nothing is kept: the entries live for this call only, and no message quotes a secret.
 *
 * @throws ApiInputError naming the file, the JSON Pointer of the problem and what is wrong.
 */
function verifyExtras(files: VerifyFiles, store: readonly KeyEntry[]): VerifyExtras {
  function parsed<T>(kind: keyof VerifyFiles, parse: (text: string) => T[]): T[] {
    const file = files[kind];
    if (file === undefined) return [];
    try {
      return parse(file.text);
    } catch (error) {
      if (!(error instanceof KeyFileError)) throw error;
      const where = error.path ? ` at ${error.path}` : '';
      throw new ApiInputError(
        `${VERIFY_FILE_KINDS[kind]} “${file.name}”${where}: ${error.message} Nothing was verified.`,
        `/${kind}/text`,
      );
    }
  }
  const trust = parsed('trust', (text) =>
    parseKeyFile(text).map((entry) => ({ ...entry, status: entry.status ?? ('pinned' as const) })),
  );
  const advertised = parsed('keys', (text) => parseKeyFile(text, { advertised: true }));
  const secrets = parsed('secrets', parseSecretsFile);
  try {
    checkKeySources([
      { name: 'the trust store', entries: [...store] },
      { name: `the trust file “${files.trust?.name ?? ''}”`, entries: trust },
      { name: `the key file “${files.keys?.name ?? ''}”`, entries: advertised },
    ]);
  } catch (error) {
    if (error instanceof KeyFileError) throw new ApiInputError(`${error.message} Nothing was verified.`);
    throw error;
  }
  return { pinned: trust, advertised, secrets };
}

/**
 * Creates the dispatcher: validates the method name and the input, then runs the method.
 *
 * @returns a function taking the untrusted method name and input, with `answer` for the
 *   transports, `desktop` for the shell's menu and `close()` for shutdown
 */
export function createAppApi(options: AppApiOptions): AppApiDispatcher {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const jobs = createImportJobs(log);
  const anchorJobs = createAnchorCheckJobs(log);
  let opened: Workspace | undefined;

  function workspace(): Workspace {
    opened ??= openWorkspace(options.dataDirectory);
    return opened;
  }

  function settings(): Settings {
    const stored = readSettings(options.dataDirectory);
    const database = readServiceDatabaseUrl(options.dataDirectory);
    return {
      dataDirectory: options.dataDirectory,
      ...stored,
      // The password stays in main: the renderer gets it masked.
      service_database: database === null ? null : maskDatabaseUrl(database),
    };
  }

  function startImport(file: string, fileName: string, cleanup?: () => void): ImportProgress {
    const { limits } = readSettings(options.dataDirectory);
    return jobs.start(
      workspace(),
      file,
      fileName,
      { limits: { maxEntries: limits.maxEntries, maxBytes: limits.maxBytes, maxRatio: limits.maxRatio } },
      cleanup,
    );
  }

  async function verifyText(
    text: string,
    save: boolean,
    name: string | undefined,
    files: VerifyFiles = {},
  ): Promise<AppApiResults['verify']> {
    const open = workspace();
    // Every file is read before anything is verified: a file that cannot be used changes nothing.
    const extras = verifyExtras(files, workspaceVerifyContext(open).pinned);
    // The ledger judges trust by its own trust store, which a file pinned for one verification
    // must not bypass: a saved report with trust from such a file would count in every view.
    if (save && files.trust !== undefined)
      throw new ApiInputError(
        'a trust file pins keys for this verification only, and the ledger judges trust by its trust store: save without it (pin the key in the Trust store to trust it in the ledger)',
        '/trust',
      );
    const bytes = textBytes(text);
    const facts = verifyBytes(bytes, workspaceVerifyContext(open, extras));
    if (!save) return { report: facts.report };
    const [saved] = saveVerified(open, [{ bytes, facts, source: { kind: 'paste', ref: name ?? 'pasted in the app' } }]);
    return { report: facts.report, ...(saved ? { saved } : {}) };
  }

  /** The shell's service control, or the refusal a bare app API (tests, tools) gives. */
  function serviceControl(): ServiceControl {
    if (options.service === undefined) {
      throw new OperationError(
        'refused',
        'service_unavailable',
        'This app cannot run the HTTP service here; start it with `evroom serve`.',
      );
    }
    return options.service;
  }

  // The PostgreSQL store of the Service view, opened on first use and kept while the setting
  // names the same URL. It is retired when the setting changes and when the app closes, and
  // closed once the calls that are using it have finished (never under a call in flight).
  interface PostgresEntry {
    readonly url: string;
    readonly store: Promise<ServiceStore>;
    users: number;
    retired: boolean;
  }
  let postgres: PostgresEntry | undefined;

  function closeEntry(entry: PostgresEntry): void {
    void entry.store.then((store) => store.close()).catch(() => undefined);
  }

  function closePostgres(): void {
    const open = postgres;
    postgres = undefined;
    if (open === undefined) return;
    open.retired = true;
    if (open.users === 0) closeEntry(open);
  }

  /**
   * Runs `use` on the service's store the Service view reads and writes: the data folder's
   * ledger, or the PostgreSQL database of Settings' "Service database". A setting changed while
   * `use` runs closes the old database only after `use` has finished.
   *
   * @throws StoreUnavailableError when that database cannot be reached (nothing is kept open)
   */
  async function withServiceStore<T>(use: (store: ServiceStore) => Promise<T>): Promise<T> {
    const url = readServiceDatabaseUrl(options.dataDirectory);
    if (url === null) {
      closePostgres();
      return use(workspaceServiceStore(workspace()));
    }
    if (postgres?.url !== url) {
      closePostgres();
      const opening = openServiceStore(workspace(), url);
      const fresh: PostgresEntry = { url, store: opening, users: 0, retired: false };
      postgres = fresh;
      // A database that could not be reached is tried again on the next call.
      opening.catch(() => {
        if (postgres === fresh) postgres = undefined;
      });
    }
    const entry = postgres;
    entry.users += 1;
    try {
      return await use(await entry.store);
    } finally {
      entry.users -= 1;
      if (entry.retired && entry.users === 0) closeEntry(entry);
    }
  }

  /** Which store the Service view is on, in words (never a password). */
  function storeView(): ServiceStatus['store'] {
    const url = readServiceDatabaseUrl(options.dataDirectory);
    return url === null
      ? { engine: 'sqlite', where: 'this workspace’s ledger' }
      : { engine: 'postgres', where: describeDatabaseUrl(url) };
  }

  async function tenantView(store: ServiceStore, tenant: TenantRecord, now: Date): Promise<TenantView> {
    return {
      id: tenant.id,
      tier: tenant.tier,
      created_at: tenant.created_at,
      quota: await tenantQuotaUse(store, tenant, now),
    };
  }

  /**
   * The `service_database` of `settings.set` as it will be stored: null, a new URL, or the stored
   * one when the masked URL the app answered comes back unchanged.
   *
   * @throws ApiInputError when it is not a PostgreSQL URL, or a masked password that is not the stored one's
   */
  function serviceDatabaseOf(given: string | null): string | null {
    if (given === null) return null;
    const stored = readServiceDatabaseUrl(options.dataDirectory);
    if (stored !== null && given === maskDatabaseUrl(stored)) return stored;
    try {
      describeDatabaseUrl(given);
    } catch (error) {
      throw new ApiInputError(`service_database: ${(error as Error).message}`, '/service_database');
    }
    if (given.includes(PASSWORD_MASK))
      throw new ApiInputError(
        `service_database: ${PASSWORD_MASK} stands for the stored password of another URL; type the password again`,
        '/service_database',
      );
    return given;
  }

  async function exportTo(file: string, filters?: ReceiptFilters): Promise<ExportResult> {
    const result = await exportEvidence(workspace(), { out: file, filters: ledgerFiltersOf(filters) });
    return { path: result.file, receipts: result.receipts };
  }

  const handlers: { [M in AppApiMethod]: (input: AppApiInput<M>) => Promise<AppApiResults[M]> | AppApiResults[M] } = {
    info: () => ({
      name: 'Evidence Room',
      version: APP_VERSION,
      mode: options.mode,
      dataDirectory: options.dataDirectory,
    }),

    overview: () => overview(workspace()),

    'receipts.list': (input) => {
      const page = listReceiptPage(workspace(), {
        filters: ledgerFiltersOf(input.filters),
        ...(input.sort ? { sort: { column: input.sort, direction: input.direction ?? 'desc' } } : {}),
        ...(input.after ? { after: input.after } : {}),
        limit: input.limit ?? 100,
      });
      return { rows: page.rows.map(toReceiptRow), nextCursor: page.nextCursor };
    },

    'receipts.count': (input) => ({
      count: countMatchingReceipts(workspace(), ledgerFiltersOf(input.filters)),
    }),

    'receipts.export': (input) =>
      receiptExportChunk(workspace(), input.form, {
        filters: ledgerFiltersOf(input.filters),
        ...(input.sort ? { sort: { column: input.sort, direction: input.direction ?? 'desc' } } : {}),
        ...(input.after ? { after: input.after } : {}),
        ...(input.limit ? { limit: input.limit } : {}),
      }),

    'receipts.get': (input) => {
      const detail = receiptDetail(workspace(), input.id);
      if (!detail) throw notFound(`There is no receipt ${input.id} in the ledger.`);
      return detail;
    },

    verify: (input) => verifyText(input.text, input.save ?? false, input.name, input),

    'bundles.list': () => bundleSummaries(workspace(), 1000),

    'bundles.get': (input) => {
      const bundle = bundleDetail(workspace(), input.id);
      if (!bundle) throw notFound(`There is no bundle ${input.id} in the ledger.`);
      return bundle;
    },

    'imports.start': (input) => {
      let bytes: Uint8Array;
      try {
        bytes = b64uDecode(input.data);
      } catch {
        throw new ApiInputError('data is not valid base64url');
      }
      const directory = mkdtempSync(join(tmpdir(), 'evroom-upload-'));
      const file = join(directory, 'bundle.zip');
      writeFileSync(file, bytes, { mode: 0o600 });
      return startImport(file, input.name ?? 'uploaded bundle.zip', () =>
        rmSync(directory, { recursive: true, force: true }),
      );
    },

    'imports.progress': (input) => {
      const progress = jobs.progress(input.jobId);
      if (!progress) throw notFound(`There is no import job ${input.jobId}.`);
      return progress;
    },

    'imports.cancel': (input) => {
      const progress = jobs.cancel(input.jobId);
      if (!progress) throw notFound(`There is no import job ${input.jobId}.`);
      return progress;
    },

    'trust.list': () => {
      const { trust } = workspace();
      const now = new Date();
      const advertised: AdvertisedKey[] = trust
        .listAdvertised()
        .map((key) => ({ ...key, public_key: b64uEncode(key.public_key) }));
      return { pinned: trust.list().map((key) => toPinned(key, now)), advertised };
    },

    'trust.pin': (input) => {
      let publicKey: Uint8Array;
      try {
        publicKey = b64uDecode(input.public_key);
      } catch {
        throw new ApiInputError('public_key must be base64url without padding');
      }
      const { key } = pinKey(workspace(), {
        key_id: input.key_id,
        algorithm: input.algorithm,
        public_key: publicKey,
        ...(input.label ? { label: input.label } : {}),
        ...(input.not_before ? { not_before: input.not_before } : {}),
        ...(input.not_after ? { not_after: input.not_after } : {}),
        ...(input.roles ? { roles: input.roles } : {}),
      });
      return toPinned(key, new Date());
    },

    'trust.revoke': (input) => toPinned(revokeKey(workspace(), input.key_id, input.reason).key, new Date()),

    'trust.unpin': (input) => {
      unpinKey(workspace(), input.key_id);
      return { key_id: input.key_id, removed: true as const };
    },

    'trust.audit': (input) => trustAuditEntries(workspace(), input.limit ?? 200),

    'settings.get': () => settings(),

    'settings.set': (input) => {
      // Everything is checked before anything is written: a refusal changes nothing.
      const database = input.service_database === undefined ? undefined : serviceDatabaseOf(input.service_database);
      if (
        database !== undefined &&
        database !== readServiceDatabaseUrl(options.dataDirectory) &&
        options.service?.status().running === true
      )
        throw new OperationError(
          'conflict',
          'service_running',
          'Stop the service before changing its database: it runs on the current one.',
          { details: [{ path: '/service_database', message: 'the service is running' }] },
        );
      const current = readSettings(options.dataDirectory);
      const next = {
        theme: input.theme ?? current.theme,
        limits: { ...current.limits, ...input.limits },
        chain: { ...current.chain, ...input.chain },
      };
      mkdirSync(options.dataDirectory, { recursive: true, mode: 0o700 });
      writeSettings(options.dataDirectory, next);
      if (database !== undefined) writeServiceDatabaseUrl(options.dataDirectory, database);
      return settings();
    },

    'exports.create': (input) => {
      // The renderer names a file, never a folder: exports land in the data folder's exports/.
      const directory = join(options.dataDirectory, 'exports');
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      const safeName = basename(input.name ?? `evidence-${new Date().toISOString().replace(/[:.]/g, '-')}`).replace(
        /[^A-Za-z0-9._-]/g,
        '_',
      );
      return exportTo(join(directory, safeName.endsWith('.zip') ? safeName : `${safeName}.zip`), input.filters);
    },

    'reports.list': () => listReports(workspace()).map(toReportSummary),
    'reports.create': async (input) => {
      const filters = ledgerFiltersOf(input.filters);
      const made = await createReport(workspace(), {
        filters,
        ...(input.as_of === undefined ? {} : { asOf: input.as_of }),
        allowEmpty: input.allow_empty === true,
      });
      return {
        report_id: made.report_id,
        generated_at: made.generated_at,
        payload_sha256: made.payload_sha256,
        receipts: made.receipts,
        by_status: made.counts.by_status,
        scope: made.scope as ReportSummary['scope'],
        signer_key_id: made.signer_key_id,
        counts: made.counts,
      };
    },
    'reports.get': async (input) => {
      const bytes = await renderKeptReport(workspace(), input.report_id, input.form);
      const mime = input.form === 'json' ? 'application/json' : input.form === 'html' ? 'text/html' : 'application/pdf';
      return {
        report_id: input.report_id,
        form: input.form,
        name: `${input.report_id}.${input.form}`,
        mime,
        data: b64uEncode(bytes),
      };
    },
    'reports.diff': (input) => {
      const context = workspaceVerifyContext(workspace());
      const older = readVerifiedReport(readKeptReport(workspace(), input.old_report), context, input.old_report).report;
      const newer = readVerifiedReport(readKeptReport(workspace(), input.new_report), context, input.new_report).report;
      return diffReports(workspace(), older, newer);
    },

    'samples.load': () => {
      const loaded = loadSamples(workspace());
      return {
        jobId: 'samples',
        state: 'done' as const,
        fileName: 'built-in samples',
        phase: 'done',
        filesRead: loaded.documents,
        filesTotal: loaded.documents,
        receiptsVerified: loaded.documents,
        receiptsTotal: loaded.documents,
        perSecond: 0,
        secondsLeft: 0,
        result: {
          receipts: loaded.documents,
          receiptsNew: loaded.created,
          receiptsKnown: loaded.documents - loaded.created,
          findings: 0,
          alreadyImported: loaded.created === 0,
          resumed: false,
        },
      };
    },

    'service.status': () => toServiceStatus(serviceControl(), storeView()),

    'service.start': async (input) => {
      const control = serviceControl();
      const databaseUrl = readServiceDatabaseUrl(options.dataDirectory);
      await control.start(input.port ?? 0, databaseUrl === null ? {} : { databaseUrl });
      return toServiceStatus(control, storeView());
    },

    'service.stop': async () => {
      const control = serviceControl();
      await control.stop();
      return toServiceStatus(control, storeView());
    },

    'service.payments': (input) => withServiceStore((store) => listPayments(store, { limit: input.limit ?? 200 })),

    'service.buyKey': async (input) => {
      const status = serviceControl().status();
      if (!status.running)
        throw new OperationError(
          'refused',
          'service_not_running',
          'Start the service first: a key is bought from the chain the running service watches.',
        );
      const chain = status.payments;
      if (chain === undefined || !chain.embedded)
        throw new OperationError(
          'refused',
          'not_development_chain',
          chain === undefined
            ? 'The service runs without a chain, so it takes no payments; start it on the embedded development chain to buy a key here.'
            : `The service takes payments on ${chain.network}, not on the embedded development chain: the app pays only with the local chain's test tokens. Buy with \`evroom apikeys buy\` and your own wallet.`,
        );
      const bought = await buyKeyOnChain({
        rpcUrl: chain.rpcUrl,
        privateKey: developmentAccountKey(input.account),
        token: chain.token,
        treasury: chain.treasury,
        tier: input.tier,
        contact: input.contact,
        ...(input.issuer_did === undefined ? {} : { issuerDid: input.issuer_did }),
        annual: input.annual,
      });
      return { tx_hash: bought.tx_hash };
    },

    'tenants.list': () =>
      withServiceStore(async (store) => {
        const now = new Date();
        const list = await tenants(store);
        const views: TenantView[] = [];
        for (const tenant of list) views.push(await tenantView(store, tenant, now));
        return views;
      }),

    'tenants.create': (input) =>
      withServiceStore(async (store) => tenantView(store, await createTenant(store, input.id, input.tier), new Date())),

    'apikeys.list': (input) => withServiceStore(async (store) => (await apiKeys(store, input.tenant)).map(toApiKey)),

    'apikeys.issue': (input) =>
      withServiceStore(async (store) => {
        const { key, record } = await issueApiKey(store, input.tenant, input.scopes ?? []);
        return { key, apiKey: toApiKey(record) };
      }),

    'apikeys.revoke': (input) =>
      withServiceStore(async (store) => toApiKey(await revokeKeyByPrefix(store, input.prefix))),

    'anchors.batches': (input) => anchorBatches(workspace(), input),
    'anchors.list': (input) => listAnchorRows(workspace(), input),
    'anchors.get': (input) => anchorDetail(workspace(), input.id),
    'anchors.ofReceipt': (input) => receiptAnchorDetail(workspace(), input.id),
    'anchors.check': (input) => checkAnchorOnChain(workspace(), input.id, readSettings(options.dataDirectory).chain),
    'anchors.counts': () => anchorLedgerCounts(workspace()),
    'anchors.checkStart': async (input) => {
      const chain = readSettings(options.dataDirectory).chain;
      // Without an RPC, the imported context packs answer (docs/anchoring.md, "In the app").
      const contextPacks = chain.rpc_url === null && (await listContextPacks(workspace())).length > 0;
      return anchorJobs.start(
        workspace(),
        'batch_id' in input ? { kind: 'batch', batch_id: input.batch_id } : { kind: 'filter', filters: input.filters },
        chain,
        contextPacks,
      );
    },
    'anchors.checkProgress': (input) => {
      const progress = anchorJobs.progress(input.jobId);
      if (!progress) throw notFound(`There is no anchor check job ${input.jobId}.`);
      return progress;
    },
    'anchors.checkCancel': (input) => {
      const progress = anchorJobs.cancel(input.jobId);
      if (!progress) throw notFound(`There is no anchor check job ${input.jobId}.`);
      return progress;
    },

    'logs.list': () => listLogs(workspace()),
    'logs.detail': (input) => logDetail(workspace(), input.origin),

    'context.list': () => listContextPacks(workspace()),
    'context.import': async (input) => {
      let bytes: Uint8Array;
      try {
        bytes = b64uDecode(input.data);
      } catch {
        throw new ApiInputError('data is not valid base64url', '/data');
      }
      const directory = mkdtempSync(join(tmpdir(), 'evroom-upload-'));
      const file = join(directory, 'context-pack.zip');
      try {
        writeFileSync(file, bytes, { mode: 0o600 });
        return await importContextPack(workspace(), file);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
    'context.remove': (input) => {
      removeContextPack(workspace(), input.pack_id);
      return { pack_id: input.pack_id, removed: true as const };
    },
    'context.pins': () => listPinnedBlocks(workspace()),
    'context.pin': (input) => pinBlockHash(workspace(), input),
    'context.unpin': (input) => {
      unpinBlockHash(workspace(), input);
      return { chain_id: input.chain_id, number: input.number, removed: true as const };
    },
  };

  const dispatch = (async (method: string, input: unknown) => {
    if (!isAppApiMethod(method))
      throw new OperationError('not_found', 'not_found', `unknown app API method '${String(method)}'`);
    try {
      const validated = APP_API[method](input) as never;
      return await (handlers[method] as (value: never) => unknown)(validated);
    } catch (error) {
      // A fault of ours is logged here, once, under the correlation id every transport's answer
      // carries (describeError gives the same error the same id).
      const { internal } = describeError(error);
      if (internal !== undefined) log(`app API ${method}: ${internalLogLine(internal)}`);
      throw error;
    }
  }) as AppApiDispatcher;
  dispatch.answer = async (method, input) => {
    try {
      return { ok: true, result: (await dispatch(method as string, input)) as AppApiResults[AppApiMethod] };
    } catch (error) {
      return { ok: false, error: describeError(error).envelope };
    }
  };
  dispatch.desktop = {
    importFile: (file) => startImport(file, basename(file)),
    exportTo,
    verifyText: (text, name) => verifyText(text, true, name),
  };
  dispatch.uploads = {
    importFile: (file, name, cleanup) => startImport(file, name, cleanup),
    importContextPack: async (file, cleanup) => {
      try {
        return await importContextPack(workspace(), file);
      } finally {
        cleanup();
      }
    },
  };
  dispatch.close = () => {
    closePostgres();
    opened?.close();
    opened = undefined;
  };
  return dispatch;
}
