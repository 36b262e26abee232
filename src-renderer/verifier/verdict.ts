/**
 * The one-file verifier's verdict for each opened file, and the honest count of them.
 *
 * A file is `verified` only when everything in it holds: a document PASS whose trust is
 * trusted, unpinned (the issuer is reported as unknown) or not applicable; a bundle clean
 * (every file matches the signed manifest, every receipt PASS) whose manifest signature is
 * valid. Anything else is counted by what it is, never as verified.
 */
import type { BundleCheck, BundleFindingCode } from '../../src-shared/evidence/check-bundle';
import type { Report, ReportStatus, TrustStatus } from '../../src-shared/verify/report';

/** Every kind of verdict, in the order the summary counts them. */
export const VERDICT_KINDS = [
  'verified',
  'verified_unknown_issuer',
  'altered',
  'signature_invalid',
  'key_revoked',
  'key_expired',
  'undecided',
  'not_decrypted',
  'unsupported',
  'malformed',
  'findings',
  'refused',
  'unreadable',
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

/** The tone (colour), icon and words of each kind: colour is never the only signal. */
export const VERDICT_STYLE: Record<
  VerdictKind,
  { tone: 'good' | 'bad' | 'warn' | 'other'; icon: string; words: string }
> = {
  verified: { tone: 'good', icon: '✓', words: 'verified' },
  verified_unknown_issuer: { tone: 'good', icon: '✓', words: 'verified (issuer unknown)' },
  altered: { tone: 'bad', icon: '≠', words: 'altered after signing' },
  signature_invalid: { tone: 'bad', icon: '✗', words: 'signature does not verify' },
  key_revoked: { tone: 'bad', icon: '⊘', words: 'signed by a revoked key' },
  key_expired: { tone: 'warn', icon: '⌛', words: 'signed outside the key’s validity window' },
  undecided: { tone: 'warn', icon: '?', words: 'could not be decided' },
  not_decrypted: { tone: 'bad', icon: '⚿', words: 'could not be decrypted' },
  unsupported: { tone: 'other', icon: '⊘', words: 'not checked (unsupported)' },
  malformed: { tone: 'bad', icon: '⚠', words: 'not a well-formed document' },
  findings: { tone: 'warn', icon: '!', words: 'read with findings' },
  refused: { tone: 'bad', icon: '⊘', words: 'refused' },
  unreadable: { tone: 'bad', icon: '⚠', words: 'could not be read' },
};

const BY_STATUS: Record<Exclude<ReportStatus, 'PASS'>, VerdictKind> = {
  MISMATCH: 'altered',
  INVALID: 'signature_invalid',
  INDETERMINATE: 'undecided',
  AUTH_FAILED: 'not_decrypted',
  UNSUPPORTED: 'unsupported',
  MALFORMED: 'malformed',
};

function byTrust(trust: TrustStatus): VerdictKind {
  if (trust === 'trusted') return 'verified';
  if (trust === 'revoked') return 'key_revoked';
  if (trust === 'expired') return 'key_expired';
  // unattributed never comes with PASS (PROTOCOL 1); counted as altered if it ever did.
  if (trust === 'unattributed') return 'altered';
  return 'verified_unknown_issuer';
}

/**
 * The verdict of a document's report.
 *
 * @param report - The report.
 * @returns Its kind.
 */
export function documentVerdict(report: Report): VerdictKind {
  return report.status === 'PASS' ? byTrust(report.trust.status) : BY_STATUS[report.status];
}

/** Finding codes that say a file or the manifest was changed after signing. */
const ALTERED_FINDINGS = new Set([
  'file_missing',
  'file_extra',
  'file_mismatch',
  'unexpected_file',
  'count_mismatch',
  'manifest_signature_mismatch',
  'manifest_signature_invalid',
  'manifest_key_mismatch',
  'receipt_name_mismatch',
]);

/**
 * The verdict of a bundle.
 *
 * @param bundle - The bundle check.
 * @returns `refused`; `altered` when a file, the manifest or a receipt was changed after signing
 *   (a file finding, a manifest signature that fails, a receipt MISMATCH or INVALID); `findings`
 *   for anything else found; for a clean bundle the manifest signature's trust decides.
 */
export function bundleVerdict(bundle: BundleCheck): VerdictKind {
  if (bundle.status === 'refused') return 'refused';
  const altered =
    Object.keys(bundle.findingCounts).some((code) => ALTERED_FINDINGS.has(code)) ||
    (bundle.counts.byStatus.MISMATCH ?? 0) > 0 ||
    (bundle.counts.byStatus.INVALID ?? 0) > 0;
  if (altered) return 'altered';
  if (bundle.status === 'findings' || bundle.signature?.status !== 'valid') return 'findings';
  return byTrust(bundle.signature.trust.status);
}

/** What a bundle's findings and receipts come to, in one line: "1 file changed, 1 receipt not PASS". */
export function bundleFindingWords(bundle: BundleCheck): string {
  const count = (code: BundleFindingCode) => bundle.findingCounts[code] ?? 0;
  const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  const parts: string[] = [];
  if (count('file_mismatch') > 0) parts.push(plural(count('file_mismatch'), 'file changed', 'files changed'));
  if (count('file_missing') > 0) parts.push(plural(count('file_missing'), 'file missing', 'files missing'));
  const extra = count('file_extra') + count('unexpected_file');
  if (extra > 0) parts.push(plural(extra, 'extra file', 'extra files'));
  if (bundle.signature !== undefined && bundle.signature.status !== 'valid')
    parts.push(`manifest signature ${bundle.signature.status}`);
  const notPass = bundle.counts.receipts - (bundle.counts.byStatus.PASS ?? 0);
  if (notPass > 0) parts.push(plural(notPass, 'receipt not PASS', 'receipts not PASS'));
  return parts.join(', ');
}

/**
 * The summary line: how many files, and how many of each verdict, none left out.
 *
 * @param kinds - The verdict of each finished file.
 * @param pending - Files still being checked.
 * @returns e.g. "2 files: 1 verified, 1 altered after signing".
 */
export function summaryCounts(kinds: readonly VerdictKind[]): { kind: VerdictKind; count: number }[] {
  return VERDICT_KINDS.map((kind) => ({ kind, count: kinds.filter((each) => each === kind).length })).filter(
    (entry) => entry.count > 0,
  );
}
