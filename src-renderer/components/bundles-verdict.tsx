/**
 * A bundle's verdict as the views show it: the banner that opens its page and the badges of its
 * row in the list. The verdict itself (words and counts) is decided by the main process
 * (src-main/operations/bundle-views.ts) and arrives typed; here it gets its colour and icon,
 * never colour alone.
 */
import { Fragment, type MouseEvent } from 'react';
import type { BundleVerdict } from '../../src-shared/api/contract';
import { hrefFor } from '../router';
import { formatCount } from './ui';

/** The id of the element the banner's link moves to (the findings panel). */
export const FINDINGS_TARGET_ID = 'bundle-findings';

const ICONS: Record<BundleVerdict['kind'], string> = {
  intact: '✓',
  altered: '✗',
  receipts_not_pass: '✗',
  unsigned: '–',
  signature_invalid: '✗',
  signature_unchecked: '?',
  unfinished: '◐',
  not_recorded: '?',
};

/** The icon of a verdict; an intact bundle with findings of other kinds shows a warning sign. */
function verdictIcon(verdict: BundleVerdict): string {
  return verdict.kind === 'intact' && verdict.tone !== 'good' ? '⚠' : ICONS[verdict.kind];
}

/** Move the focus (and the view) to the findings panel. */
export function focusFindings(): void {
  const target = document.getElementById(FINDINGS_TARGET_ID);
  if (!target) return;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

/** How many findings of each kind, in short words: `1 changed · 1 missing · 2 receipts not PASS`. */
export function findingKinds(verdict: BundleVerdict): string[] {
  const parts: string[] = [];
  if (verdict.changed > 0) parts.push(`${formatCount(verdict.changed)} changed`);
  if (verdict.missing > 0) parts.push(`${formatCount(verdict.missing)} missing`);
  if (verdict.extra > 0) parts.push(`${formatCount(verdict.extra)} extra`);
  if (verdict.receiptsNotPass > 0)
    parts.push(
      `${formatCount(verdict.receiptsNotPass)} ${verdict.receiptsNotPass === 1 ? 'receipt' : 'receipts'} not PASS`,
    );
  if (verdict.other > 0) parts.push(`${formatCount(verdict.other)} other`);
  return parts;
}

/**
 * The banner that opens a bundle's page: colour, icon and words, and a link to the findings.
 *
 * The link's address (`#/bundles/ID?at=findings`) opens the page at its findings in a new tab
 * too; in this tab a click moves the focus there without leaving the page.
 */
export function VerdictBanner({
  verdict,
  bundleId,
  findingsTotal,
}: {
  verdict: BundleVerdict;
  bundleId: number;
  findingsTotal: number | undefined;
}) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    focusFindings();
  };
  const total = findingsTotal ?? 0;
  return (
    <section
      className={`verdict-banner verdict-${verdict.tone}`}
      aria-labelledby="bundle-verdict-title"
      data-testid="bundle-verdict"
      data-verdict={verdict.kind}
      data-tone={verdict.tone}
    >
      <span className="verdict-icon" aria-hidden="true">
        {verdictIcon(verdict)}
      </span>
      <div className="verdict-body">
        <p className="verdict-label">Verdict: {verdict.label}</p>
        <h2 id="bundle-verdict-title" className="verdict-headline">
          {verdict.headline}
        </h2>
        <p className="verdict-detail">{verdict.detail}</p>
        <p className="verdict-link">
          <a href={hrefFor(['bundles', bundleId], { at: 'findings' })} onClick={onClick}>
            {total === 0
              ? 'See what was checked'
              : `See the ${formatCount(total)} ${total === 1 ? 'finding' : 'findings'}`}
          </a>
        </p>
      </div>
    </section>
  );
}

/** A bundle's verdict as a badge for the list: icon and a word or two; the headline on hover. */
export function VerdictBadge({ verdict }: { verdict: BundleVerdict }) {
  return (
    <span className={`badge badge-${verdict.tone}`} title={verdict.headline} data-verdict={verdict.kind}>
      <span aria-hidden="true" className="badge-icon">
        {verdictIcon(verdict)}
      </span>
      {verdict.label}
    </span>
  );
}

/** The findings count as a badge that says what it counts, with the kinds under it. */
export function FindingsBadge({ verdict, total }: { verdict: BundleVerdict; total: number | undefined }) {
  if (total === undefined) return <span className="muted">not recorded</span>;
  if (total === 0)
    return (
      <span className="badge badge-neutral" data-findings-count="0">
        <span aria-hidden="true" className="badge-icon">
          ✓
        </span>
        no findings
      </span>
    );
  const serious = verdict.changed + verdict.missing + verdict.extra + verdict.receiptsNotPass > 0;
  const kinds = findingKinds(verdict);
  return (
    <span className="findings-cell">
      <span className={`badge badge-${serious ? 'bad' : 'warn'}`} data-findings-count={total}>
        <span aria-hidden="true" className="badge-icon">
          ⚑
        </span>
        {formatCount(total)} {total === 1 ? 'finding' : 'findings'}
      </span>
      {kinds.length > 0 && (
        <span className="findings-kinds muted">
          {kinds.map((kind, index) => (
            <Fragment key={kind}>
              {index > 0 && ' · '}
              <span className="nowrap">{kind}</span>
            </Fragment>
          ))}
        </span>
      )}
    </span>
  );
}
