/**
 * Stored bundle JSON (the import's signature check, counts, findings and manifest) as the
 * contract's typed shapes, read once (operations/ledger-views.ts and the app API's bundle detail).
 *
 * The ledger keeps these as JSON text written by the import (src-main/evidence). A bundle
 * imported by an older or newer version may lack a member or carry one this version does not
 * know, so every reader checks each member and falls back to "not recorded" instead of
 * throwing; the renderer then trusts the types it is given.
 */
import type {
  BundleCounts,
  BundleFinding,
  BundleManifest,
  BundleSignature,
  BundleVerdict,
  LogCompleteness,
  LogConsistency,
  LogSigner,
} from '../../src-shared/api/contract';
import { LOG_COMPLETENESS_STATUSES, type LogCompletenessStatus } from '../../src-shared/api/logs-contract';
import {
  REPORT_STATUSES,
  type BundleStatus,
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

/** Missing leaf indices kept in a completeness (the contract's "first 1,000"). */
const MISSING_LISTED = 1000;
const LOG_SIGNERS: readonly LogSigner[] = ['pinned', 'advertised', 'unknown'];
const LOG_CONSISTENCIES: readonly LogConsistency[] = ['consistent', 'unchecked', 'split_view'];

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : undefined;
}

function nullableText(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * A bundle's stored log completeness (`bundles.log_json`, as the ledger parsed it or as text).
 *
 * @returns null for a bundle without log evidence, or when what is stored is not a completeness
 *   at all (no sentence to show); a status this version does not know reads as `invalid`, so a
 *   result it cannot judge is never shown as complete
 */
export function readLogCompleteness(value: unknown): LogCompleteness | null {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  const source = record(parsed);
  const sentence = text(source?.sentence);
  if (!source || sentence === undefined) return null;
  const period = record(source.period);
  const missing = Array.isArray(source.missing)
    ? source.missing.flatMap((index) => (count(index) === undefined ? [] : [index as number])).slice(0, MISSING_LISTED)
    : [];
  const status: LogCompletenessStatus = oneOf(source.status, LOG_COMPLETENESS_STATUSES) ?? 'invalid';
  const consistency = oneOf(source.consistency, LOG_CONSISTENCIES);
  const origin = text(source.origin);
  const keyName = text(source.key_name);
  const treeSize = count(source.tree_size);
  const rootHex = text(source.root_hex);
  return {
    status,
    ...(origin === undefined ? {} : { origin }),
    ...(keyName === undefined ? {} : { key_name: keyName }),
    ...(treeSize === undefined ? {} : { tree_size: treeSize }),
    ...(rootHex === undefined ? {} : { root_hex: rootHex }),
    signer: oneOf(source.signer, LOG_SIGNERS) ?? 'unknown',
    period: { since: nullableText(period?.since), until: nullableText(period?.until) },
    first_index: count(source.first_index) ?? null,
    last_index: count(source.last_index) ?? null,
    missing,
    missing_count: Math.max(count(source.missing_count) ?? 0, missing.length),
    stale: source.stale === true,
    ...(consistency === undefined ? {} : { consistency }),
    sentence,
  };
}

/** Codes that are manifest.sig's own findings: said by the signature's verdict, not counted again. */
const SIGNATURE_FINDING_PREFIX = 'manifest_signature_';

/** `1 changed, 1 missing, 1 extra, 2 receipts not PASS, 1 other finding`: only the kinds present. */
function findingParts(counts: Pick<BundleVerdict, 'changed' | 'missing' | 'extra' | 'receiptsNotPass' | 'other'>) {
  const parts: string[] = [];
  if (counts.changed > 0) parts.push(`${counts.changed.toLocaleString('en-US')} changed`);
  if (counts.missing > 0) parts.push(`${counts.missing.toLocaleString('en-US')} missing`);
  if (counts.extra > 0) parts.push(`${counts.extra.toLocaleString('en-US')} extra`);
  if (counts.receiptsNotPass > 0)
    parts.push(
      `${counts.receiptsNotPass.toLocaleString('en-US')} ${counts.receiptsNotPass === 1 ? 'receipt' : 'receipts'} not PASS`,
    );
  if (counts.other > 0)
    parts.push(`${counts.other.toLocaleString('en-US')} other ${counts.other === 1 ? 'finding' : 'findings'}`);
  return parts;
}

/** Who signed, and what that says (trust is a separate fact from validity). */
function signerSentence(signature: BundleSignature): string {
  const key = signature.keyId ?? 'the key named in manifest.sig';
  switch (signature.trust) {
    case 'trusted':
      return `Signed by ${key}, a key you pinned.`;
    case 'revoked':
      return `Signed by ${key}, a key you revoked: do not rely on it.`;
    case 'expired':
      return `Signed by ${key}, a key outside its validity period in your trust store.`;
    case 'unpinned':
      return `Signed by ${key}, a key you have not pinned: this says nothing about who made the bundle.`;
    default:
      return `Signed by ${key}.`;
  }
}

/** What a signature that does not verify is, in words. */
const BROKEN_SIGNATURE: Partial<Record<string, string>> = {
  invalid: 'manifest.sig does not verify',
  mismatch: 'manifest.sig names another manifest',
  malformed: 'manifest.sig is malformed',
};

/**
 * A bundle's verdict: what its page and its row in the list say first.
 *
 * "Intact" is said only when the signature verifies and no file differs from the signed
 * manifest (none changed, missing or extra). The counts come from the import's counts by code,
 * so they are whole even when only the first findings are listed.
 *
 * @param status - The import's status (`partial`: no verdict yet).
 * @param signature - The stored manifest.sig check, or undefined when none was stored.
 * @param counts - The stored counts.
 * @returns The verdict.
 */
export function bundleVerdict(
  status: BundleStatus,
  signature: BundleSignature | undefined,
  counts: BundleCounts,
): BundleVerdict {
  const byCode = new Map(counts.findingsByCode);
  const amount = (code: string): number => byCode.get(code) ?? 0;
  const tally = {
    changed: amount('file_mismatch'),
    missing: amount('file_missing'),
    extra: amount('file_extra'),
    receiptsNotPass: amount('receipt_not_pass'),
    other: 0,
  };
  // The log's findings (issue 28) are said as such: the completeness line beside the verdict tells the rest.
  let logFindings = 0;
  for (const [code, value] of counts.findingsByCode) {
    if (['file_mismatch', 'file_missing', 'file_extra', 'receipt_not_pass'].includes(code)) continue;
    if (code.startsWith(SIGNATURE_FINDING_PREFIX)) continue;
    if (code.startsWith('log_')) {
      logFindings += value;
      continue;
    }
    tally.other += value;
  }
  const splitView = amount('log_split_view') > 0;
  const parts = findingParts(tally);
  if (logFindings > 0)
    parts.push(`${logFindings.toLocaleString('en-US')} log ${logFindings === 1 ? 'finding' : 'findings'}`);
  const listed = parts.join(', ');
  const fileFindings = tally.changed + tally.missing + tally.extra;
  const verdict = (
    kind: BundleVerdict['kind'],
    tone: BundleVerdict['tone'],
    label: string,
    headline: string,
    detail: string,
  ): BundleVerdict => ({ kind, tone, label, headline, detail, ...tally });

  if (status === 'partial') {
    return verdict(
      'unfinished',
      'warn',
      'Unfinished',
      'Import unfinished: no verdict until it completes',
      `The import stopped part-way, so not every file was compared with the manifest${parts.length > 0 ? ` (found so far: ${listed})` : ''}. Import the same zip again to finish it.`,
    );
  }
  if (signature === undefined || counts.findingsTotal === undefined) {
    return verdict(
      'not_recorded',
      'warn',
      'No verdict',
      'No verdict: the checks of this import were not recorded',
      'Import the same zip again to check it file by file.',
    );
  }
  /** The three cases every signature that proves nothing shares. */
  const unprovenFiles = (lead: string): string =>
    fileFindings > 0
      ? `${lead}, and files differ from the manifest: ${listed}`
      : parts.length > 0
        ? `${lead}; the files match the manifest; ${listed}`
        : `${lead}; the files match the manifest`;
  const broken = BROKEN_SIGNATURE[signature.status];
  if (broken !== undefined) {
    return verdict(
      'signature_invalid',
      'bad',
      'Signature invalid',
      unprovenFiles(`Not verified: ${broken}`),
      'The manifest is not shown to be as its signer made it, so comparing the files with it proves nothing about them. The receipts were still verified one by one.',
    );
  }
  if (signature.status === 'missing') {
    return verdict(
      'unsigned',
      parts.length > 0 ? 'bad' : 'warn',
      'Unsigned',
      unprovenFiles('Unsigned: the bundle has no manifest.sig'),
      'Anyone can write an unsigned manifest, so comparing the files with it shows only that the zip agrees with itself. The receipts were still verified one by one.',
    );
  }
  if (signature.status !== 'valid') {
    const why = signature.status === 'unavailable' ? 'no key for the signer' : 'an unsupported algorithm';
    return verdict(
      'signature_unchecked',
      parts.length > 0 ? 'bad' : 'warn',
      'Signature not checked',
      unprovenFiles(`Signature not checked (${why})`),
      'Until the signature is checked, comparing the files with the manifest shows only that the zip agrees with itself. The receipts were still verified one by one.',
    );
  }
  const signer = signerSentence(signature);
  const signerDoubtful = signature.trust === 'revoked' || signature.trust === 'expired';
  if (fileFindings > 0) {
    return verdict(
      'altered',
      'bad',
      'Altered',
      `Altered after signing: ${listed}`,
      `manifest.sig verifies, so the manifest is as its signer made it; the files listed below differ from it. ${signer}`,
    );
  }
  if (tally.receiptsNotPass > 0) {
    return verdict(
      'receipts_not_pass',
      'bad',
      'Receipts not PASS',
      `Files intact; ${listed}`,
      `Every file matches the signed manifest, but receipts inside did not verify PASS: a receipt can be signed into a bundle already broken. ${signer}`,
    );
  }
  if (tally.other > 0 || logFindings > 0) {
    return verdict(
      'intact',
      splitView ? 'bad' : 'warn',
      'Intact',
      `Intact: every file matches the signed manifest; ${listed}`,
      `manifest.sig verifies and every file has the size and SHA-256 the manifest lists; every receipt verified PASS.${
        logFindings > 0
          ? splitView
            ? ' Its log checkpoint disagrees with one seen before (a split view): see Logs.'
            : ' Its log evidence does not show the period complete: see the completeness line.'
          : ''
      } ${signer}`,
    );
  }
  return verdict(
    'intact',
    signerDoubtful ? 'warn' : 'good',
    'Intact',
    'Intact: every file matches the signed manifest, and every receipt verified PASS',
    `manifest.sig verifies and every file has the size and SHA-256 the manifest lists. ${signer}`,
  );
}
