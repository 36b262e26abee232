/**
 * The verdict summary at the top of a report's HTML page and PDF: what an auditor reads first,
 * made from the signed report alone (so the HTML verifier's re-rendering makes it too).
 *
 * The overall verdict, worst first:
 * - `empty`: no receipt is in scope (a report made with --allow-empty; docs/reports.md);
 * - `fail`: a receipt is not PASS, or a bundle was altered after signing or its manifest
 *   signature is not valid, or a bundle's log evidence is incomplete or invalid or its log
 *   showed a split view (only reports with `completeness`);
 * - `warn`: every receipt is PASS and every bundle intact, but some receipt is not trusted
 *   (unpinned, revoked, expired, unattributed, not applicable);
 * - `pass`: every receipt PASS and trusted, every bundle intact.
 */
import { STATUS_PRECEDENCE, TRUST_STATUSES } from '../../verify/report';
import { ANCHOR_STATES, COMPLETENESS_SECTION, orderedCounts, type ReportBundle, type SignedReport } from './model';

/** The tone of a verdict: colour and icon in HTML and PDF, always with words. */
export type VerdictTone = 'pass' | 'warn' | 'fail' | 'empty';

/** A bundle's verdict in a report. */
export type BundleVerdict = 'intact' | 'altered' | 'unverified';

/** The verdict summary of a report. */
export interface ReportVerdict {
  tone: VerdictTone;
  /** The icon shown beside the headline (never the only signal). */
  icon: string;
  /** One sentence: the overall verdict in words. */
  headline: string;
  /** Labelled lines: counts by status, by trust, bundles, anchoring. */
  lines: [string, string][];
}

/** The icon of each tone. */
export const VERDICT_ICONS: Record<VerdictTone, string> = { pass: '✓', warn: '⚠', fail: '✗', empty: '∅' };

/** The marking of a report with no receipts in scope (its first words, in every form). */
export const EMPTY_REPORT_MARK = 'EMPTY: no receipts in scope';

/**
 * How a bundle is named in a report: its file name as imported, or its hash prefix when the
 * ledger did not record one.
 *
 * @param bundle - The bundle, or only its file and hash.
 * @returns `evidence.zip`, or `3f9a0c1b2d4e (file name unknown)`.
 */
export function bundleLabel(bundle: Pick<ReportBundle, 'file' | 'bundle_sha256'>): string {
  return bundle.file !== null && bundle.file !== ''
    ? bundle.file
    : `${bundle.bundle_sha256.slice(0, 12)} (file name unknown)`;
}

/**
 * A bundle's verdict: altered when its import found anything (a file changed, missing or extra),
 * unverified when its manifest signature is not valid, else intact.
 *
 * @param bundle - The bundle as the report lists it.
 * @returns The verdict.
 */
export function bundleVerdict(bundle: Pick<ReportBundle, 'findings' | 'signature_status'>): BundleVerdict {
  if (bundle.findings > 0) return 'altered';
  if (bundle.signature_status !== 'valid') return 'unverified';
  return 'intact';
}

/** "3 PASS · 1 MISMATCH": the non-zero entries, and the `always` ones even at zero. */
function countLine(
  values: Record<string, number>,
  vocabulary: readonly string[],
  always: readonly string[] = [],
): string {
  const entries = orderedCounts(values, vocabulary).filter(([name, count]) => count > 0 || always.includes(name));
  return entries.length === 0 ? 'none' : entries.map(([name, count]) => `${count} ${name}`).join(' · ');
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * The verdict summary of a report.
 *
 * @param report - The signed report.
 * @returns Tone, icon, headline and lines.
 */
export function reportVerdict(report: SignedReport): ReportVerdict {
  const total = report.receipts.length;
  const passed = report.counts.by_status.PASS ?? 0;
  const trusted = report.counts.by_trust.trusted ?? 0;
  const notPass = total - passed;
  const bundles = report.inputs.bundles.map((bundle) => ({ bundle, verdict: bundleVerdict(bundle) }));
  const altered = bundles.filter((entry) => entry.verdict === 'altered');
  const unverified = bundles.filter((entry) => entry.verdict === 'unverified');
  const completeness = report.completeness ?? [];
  const notComplete = completeness.filter((entry) => entry.status !== 'complete');
  const split = completeness.filter((entry) => entry.consistency === 'split_view');
  let tone: VerdictTone;
  let headline: string;
  if (total === 0) {
    tone = 'empty';
    headline = `${EMPTY_REPORT_MARK}. This report attests that the ledger held no receipt matching its scope; it verifies nothing else.`;
  } else if (notPass > 0 || altered.length > 0 || unverified.length > 0 || notComplete.length > 0 || split.length > 0) {
    tone = 'fail';
    const parts: string[] = [];
    if (notPass > 0) parts.push(`${notPass} of ${plural(total, 'receipt')} not PASS`);
    if (altered.length > 0) parts.push(`${plural(altered.length, 'bundle')} altered after signing`);
    if (unverified.length > 0) parts.push(`${plural(unverified.length, 'bundle')} without a valid manifest signature`);
    if (notComplete.length > 0)
      parts.push(`${plural(notComplete.length, 'bundle')} not shown complete in the tenant’s log`);
    if (split.length > 0) parts.push(`a SPLIT VIEW of ${plural(split.length, 'bundle')}’s log`);
    headline = `Not all evidence holds: ${parts.join('; ')}.`;
  } else if (trusted < total) {
    tone = 'warn';
    headline = `Every receipt is PASS${bundles.length > 0 ? ' and every bundle intact' : ''}, but ${total - trusted} of ${plural(total, 'receipt')} ${total - trusted === 1 ? 'is' : 'are'} not from a trusted issuer.`;
  } else {
    tone = 'pass';
    headline = `Every receipt is PASS and from a trusted issuer${bundles.length > 0 ? '; every bundle is intact' : ''}.`;
  }
  const lines: [string, string][] = [
    ['receipts', String(total)],
    ['by status', countLine(report.counts.by_status, STATUS_PRECEDENCE)],
    ['by trust', countLine(report.counts.by_trust, TRUST_STATUSES, ['unattributed'])],
  ];
  if (bundles.length > 0) {
    const describe = (entry: (typeof bundles)[number]): string =>
      entry.verdict === 'altered'
        ? `${bundleLabel(entry.bundle)} altered (${plural(entry.bundle.findings, 'finding')})`
        : entry.verdict === 'unverified'
          ? `${bundleLabel(entry.bundle)} manifest signature ${entry.bundle.signature_status}`
          : `${bundleLabel(entry.bundle)} intact`;
    // Altered and unverified bundles are named; intact ones too while few.
    const named = [...altered, ...unverified, ...bundles.filter((entry) => entry.verdict === 'intact')].slice(0, 10);
    const rest = bundles.length - named.length;
    lines.push([
      'bundles',
      `${altered.length} altered · ${unverified.length} unverified · ${bundles.length - altered.length - unverified.length} intact: ${named.map(describe).join('; ')}${rest > 0 ? `; and ${rest} more (see Bundles read)` : ''}`,
    ]);
  }
  if (completeness.length > 0) {
    const count = (status: string): number => completeness.filter((entry) => entry.status === status).length;
    lines.push([
      'completeness',
      `${count('complete')} complete · ${count('incomplete')} incomplete · ${count('invalid')} invalid${split.length > 0 ? ` · ${split.length} SPLIT VIEW` : ''} (see ${COMPLETENESS_SECTION[1]})`,
    ]);
  }
  if (total > 0 && (report.counts.by_anchor.none ?? 0) < total)
    lines.push(['anchoring (as recorded)', countLine(report.counts.by_anchor, ANCHOR_STATES)]);
  else if (total > 0) lines.push(['anchoring (as recorded)', `none of the ${plural(total, 'receipt')} is anchored`]);
  return { tone, icon: VERDICT_ICONS[tone], headline, lines };
}
