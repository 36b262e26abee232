/**
 * The receipts list's filters as the app API states them, turned into the ledger's: instants to
 * milliseconds, a bundle to its source. One translation for every operation that takes them
 * (export, report scope, count, check on chain).
 */
import type { ReceiptFilters as ApiReceiptFilters } from '../../src-shared/api/contract';
import type { ReceiptFilters } from '../ledger';

/**
 * The filters of the app API as the ledger takes them (instants to ms, a bundle to a source).
 *
 * @param filters - The app API's filters (validated).
 * @returns The ledger's.
 */
export function ledgerFiltersOf(filters: ApiReceiptFilters = {}): ReceiptFilters {
  const out: ReceiptFilters = {};
  if (filters.format !== undefined) out.format = filters.format;
  if (filters.status !== undefined) out.status = filters.status;
  if (filters.trust !== undefined) out.trust = filters.trust;
  if (filters.issuer !== undefined) out.issuer = filters.issuer;
  if (filters.from !== undefined) out.from = Date.parse(filters.from);
  if (filters.to !== undefined) out.to = Date.parse(filters.to);
  if (filters.text !== undefined) out.text = filters.text;
  if (filters.bundle !== undefined) out.source = { kind: 'bundle', ref: String(filters.bundle) };
  if (filters.anchor !== undefined) out.anchor = filters.anchor;
  return out;
}
