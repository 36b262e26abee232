/**
 * The Overview's anchoring panel: how many receipts are not anchored, pending, verified and
 * failed (exact counts the ledger keeps), each a link to Receipts filtered by that state.
 */
import { ANCHOR_LEDGER_STATES } from '../../src-shared/api/contract';
import { useApi } from '../api';
import { hrefFor } from '../router';
import { AnchorLedgerBadge, anchorLedgerMeaning } from './anchor-ledger';
import { ErrorNotice, Loading, Panel, formatCount } from './ui';
import './anchor-ledger.css';

/** The panel. */
export function AnchorSummary() {
  const counts = useApi('anchors.counts', undefined);
  return (
    <Panel title="Anchoring">
      {counts.error && <ErrorNotice title="Could not count the anchor states" message={counts.error} />}
      {!counts.data && !counts.error && <Loading label="Counting anchor states…" />}
      {counts.data && (
        <ul className="anchor-summary-list" aria-label="Receipts by anchor state" data-testid="anchor-summary">
          {ANCHOR_LEDGER_STATES.map((state) => {
            const count = counts.data?.counts[state] ?? 0;
            return (
              <li key={state} data-anchor-summary={state}>
                <a
                  href={hrefFor(['receipts'], { anchor: state })}
                  title={`Show the receipts: ${anchorLedgerMeaning(state)}`}
                >
                  <span className="anchor-summary-count">{formatCount(count)}</span>
                  <AnchorLedgerBadge state={state} />
                  <span className="visually-hidden">{count === 1 ? 'receipt' : 'receipts'}</span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
    </Panel>
  );
}
