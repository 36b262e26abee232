/**
 * A receipt's anchor state in the ledger's lists (the Receipts column and filter, the
 * Overview's counts): not anchored, pending, verified, verified with context or failed (docs/anchoring.md). An icon and
 * words, never colour alone.
 */
import { ANCHOR_LEDGER_STATES, type AnchorLedgerState } from '../../src-shared/api/contract';

const STYLE: Record<AnchorLedgerState, { icon: string; tone: string; label: string; meaning: string }> = {
  none: {
    icon: '–',
    tone: 'neutral',
    label: 'not anchored',
    meaning: 'no anchor record names this receipt',
  },
  pending: {
    icon: '…',
    tone: 'warn',
    label: 'pending',
    meaning: 'anchored, not yet verified on chain (pending, checked offline only, or awaiting confirmations)',
  },
  verified: {
    icon: '✓',
    tone: 'good',
    label: 'verified',
    meaning: 'an anchor record of it verified on chain (steps 1-3) at its last check',
  },
  verified_with_context: {
    icon: '✓',
    tone: 'neutral',
    label: 'verified with context',
    meaning:
      'no record verified on a live chain, but one verified with steps 2-3 from an imported context pack (not the same as verified on chain)',
  },
  failed: {
    icon: '✗',
    tone: 'bad',
    label: 'failed',
    meaning: 'every anchor record of it failed its last check',
  },
};

/** The states, in the order filters and counts list them. */
export const ANCHOR_LEDGER_OPTIONS: readonly { value: AnchorLedgerState; label: string }[] = ANCHOR_LEDGER_STATES.map(
  (value) => ({ value, label: STYLE[value].label }),
);

/**
 * The words for a state.
 *
 * @param state - The state.
 * @returns E.g. `not anchored`.
 */
export function anchorLedgerLabel(state: AnchorLedgerState): string {
  return STYLE[state].label;
}

/**
 * What a state means, in a phrase.
 *
 * @param state - The state.
 * @returns The meaning.
 */
export function anchorLedgerMeaning(state: AnchorLedgerState): string {
  return STYLE[state].meaning;
}

/** A receipt's anchor state as a badge. */
export function AnchorLedgerBadge({ state }: { state: AnchorLedgerState }) {
  const style = STYLE[state];
  return (
    <span className={`badge badge-outline badge-${style.tone}`} title={style.meaning} data-anchor-ledger={state}>
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {style.label}
    </span>
  );
}
