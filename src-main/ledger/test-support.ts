/**
 * Helpers shared by the ledger's and trust store's tests: temporary ledgers and sample rows.
 *
 * Not used by the program itself.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Report, ReportStatus, TrustStatus } from '../../src-shared/verify/report';
import { openLedger, type Ledger, type OpenLedgerOptions } from './open-ledger';
import type { NewReceipt } from './receipts';

/**
 * A fresh temporary directory (removed by the returned cleanup).
 */
export function makeTemporaryDirectory(prefix = 'evroom-ledger-'): { directory: string; cleanup: () => void } {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { directory, cleanup: () => fs.rmSync(directory, { recursive: true, force: true }) };
}

/**
 * A new ledger in a new temporary directory; `dispose` closes it and removes the directory.
 */
export function makeTemporaryLedger(options?: OpenLedgerOptions): {
  ledger: Ledger;
  file: string;
  directory: string;
  dispose: () => void;
} {
  const { directory, cleanup } = makeTemporaryDirectory();
  const file = path.join(directory, 'ledger.sqlite');
  const ledger = openLedger(file, options);
  return {
    ledger,
    file,
    directory,
    dispose: () => {
      ledger.close();
      cleanup();
    },
  };
}

/** hex SHA-256 of a string (stands in for the JCS hash of a document in tests). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A minimal well-formed report. */
export function makeReport(
  options: {
    format?: string;
    status?: ReportStatus;
    trust?: TrustStatus;
    key_id?: string;
  } = {},
): Report {
  return {
    report_version: '1',
    format: (options.format ?? 'profile/nano') as Report['format'],
    status: options.status ?? 'PASS',
    trust: { status: options.trust ?? 'unpinned', ...(options.key_id === undefined ? {} : { key_id: options.key_id }) },
    checks: [{ id: 'signature', status: 'pass' }],
    errors: [],
    notes: [],
  };
}

/** A receipt to insert, derived from a seed so that equal seeds give equal receipts. */
export function makeReceipt(
  seed: string,
  options: {
    format?: string;
    status?: ReportStatus;
    trust?: TrustStatus;
    key_id?: string;
    receipt_id?: string | null;
    issued_at?: number | null;
    search_text?: string;
  } = {},
): NewReceipt {
  const raw = new TextEncoder().encode(JSON.stringify({ seed }));
  return {
    receipt_sha256: sha256Hex(seed),
    raw,
    report: makeReport(options),
    receipt_id: options.receipt_id === undefined ? `rcp_${seed}` : options.receipt_id,
    ...(options.issued_at === undefined ? {} : { issued_at: options.issued_at }),
    ...(options.search_text === undefined ? {} : { search_text: options.search_text }),
  };
}
