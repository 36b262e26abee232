/**
 * Stored bundle JSON (the import's signature check, counts, findings and manifest) as the
 * contract's typed shapes, read once (operations/ledger-views.ts and the app API's bundle detail).
 *
 * The ledger keeps these as JSON text written by the import (src-main/evidence). A bundle
 * imported by an older or newer version may lack a member or carry one this version does not
 * know, so every reader checks each member and falls back to "not recorded" instead of
 * throwing; the renderer then trusts the types it is given.
 */
import type { BundleCounts, BundleFinding, BundleManifest, BundleSignature } from '../../src-shared/api/contract';
import {
  REPORT_STATUSES,
  SIGNATURE_CHECK_STATUSES,
  TRUST_STATUSES,
  type ReportStatus,
  type SignatureCheckStatus,
  type TrustStatus,
} from '../../src-shared/api/vocabulary';

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function isTrustStatus(value: unknown): value is TrustStatus {
  return typeof value === 'string' && (TRUST_STATUSES as readonly string[]).includes(value);
}

function isSignatureStatus(value: unknown): value is SignatureCheckStatus {
  return typeof value === 'string' && (SIGNATURE_CHECK_STATUSES as readonly string[]).includes(value);
}

/** Number-valued members of an object, in a stable order. */
function countEntries(value: unknown): [string, number][] {
  const source = record(value);
  if (!source) return [];
  const entries: [string, number][] = [];
  for (const [name, member] of Object.entries(source)) {
    const amount = count(member);
    if (amount !== undefined) entries.push([name, amount]);
  }
  return entries;
}

/**
 * A stored manifest signature check.
 *
 * @returns undefined when nothing usable was stored (an import that never got that far, or a
 *   status this version does not know: never shown as valid)
 */
export function readSignature(value: unknown): BundleSignature | undefined {
  const source = record(value);
  if (!source || !isSignatureStatus(source.status)) return undefined;
  const trust = record(source.trust);
  return {
    status: source.status,
    keyId: text(source.key_id) ?? text(trust?.key_id),
    trust: isTrustStatus(trust?.status) ? trust.status : 'not_applicable',
    trustLabel: text(trust?.label),
    trustDetail: text(trust?.detail),
    manifestSha256: text(source.manifest_sha256),
    detail: text(source.detail),
  };
}

/** Stored import counts; members that are missing or not counts stay undefined. */
export function readCounts(value: unknown): BundleCounts {
  const source = record(value) ?? {};
  const findings = record(source.findings);
  const byStatusSource = record(source.byStatus) ?? {};
  const byTrustSource = record(source.byTrust) ?? {};
  const byStatus = REPORT_STATUSES.flatMap((status): [ReportStatus, number][] => {
    const amount = count(byStatusSource[status]);
    return amount ? [[status, amount]] : [];
  });
  const byTrust = TRUST_STATUSES.flatMap((trust): [TrustStatus, number][] => {
    const amount = count(byTrustSource[trust]);
    return amount ? [[trust, amount]] : [];
  });
  return {
    files: count(source.files),
    receipts: count(source.receipts),
    receiptsNew: count(source.receiptsNew),
    receiptsKnown: count(source.receiptsKnown),
    anchors: count(source.anchors),
    anchorsNew: count(source.anchorsNew),
    advertisedKeys: count(source.advertisedKeys),
    byStatus,
    byTrust,
    findingsTotal: count(findings?.total),
    findingsByCode: countEntries(findings?.byCode),
  };
}

/** Stored findings, skipping anything that is not a finding. */
export function readFindings(value: unknown): BundleFinding[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): BundleFinding[] => {
    const source = record(item);
    const code = text(source?.code);
    if (!source || code === undefined) return [];
    return [{ code, path: text(source.path) ?? '', message: text(source.message) ?? '' }];
  });
}

/** The stored manifest (manifest.json's text, parsed). */
export function readManifest(manifestJson: string): BundleManifest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifestJson);
  } catch {
    return undefined;
  }
  const source = record(parsed);
  if (!source) return undefined;
  return {
    bundleFormat: text(source.bundle_format),
    tenantId: text(source.tenant_id),
    generatedAt: text(source.generated_at),
    keyId: text(source.key_id),
    fileCount: Array.isArray(source.files) ? source.files.length : undefined,
    declaredCounts: countEntries(source.counts),
  };
}
