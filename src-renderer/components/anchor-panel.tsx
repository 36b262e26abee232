/**
 * A receipt's anchor: its state, the Merkle path drawn from the receipt's leaf to the root, the
 * transaction that carries the root, the three steps of counterparty verification (PROTOCOL
 * section 8) with the evidence each used, and "Check on chain", which runs steps 2-3 against the RPC
 * set in Settings, or from the imported context packs when the chain does not answer.
 *
 * Hashes are shown short; each is a button that copies the full hash, which its title shows.
 */
import { useEffect, useRef, useState } from 'react';
import type {
  AnchorCheckResult,
  AnchorDetail,
  AnchorStepView,
  MerkleProofView,
  ReceiptAnchorState,
} from '../../src-shared/api/contract';
import { api, errorMessage } from '../api';
import { hrefFor } from '../router';
import { copyText } from './receipts-shared';
import { CopyableValue } from './copyable-value';
import { CheckBadge } from './status';
import { Button, Fields, formatInstant } from './ui';
import './anchor-panel.css';

const STATE: Record<ReceiptAnchorState, { icon: string; tone: string; label: string; meaning: string }> = {
  verified: {
    icon: '✓',
    tone: 'good',
    label: 'verified on chain',
    meaning: 'steps 1-3 passed at the last check against a chain',
  },
  verified_with_context: {
    icon: '✓',
    tone: 'neutral',
    label: 'verified with context',
    meaning:
      'steps 1-3 passed at the last check, steps 2-3 from an imported context pack (no live chain): never the same as verified on chain',
  },
  verified_offline: {
    icon: '✓',
    tone: 'neutral',
    label: 'verified offline',
    meaning: 'step 1 passed: the receipt folds to the Merkle root; the chain was not asked',
  },
  pending: {
    icon: '◔',
    tone: 'warn',
    label: 'pending',
    meaning:
      'the batch has not posted its root yet (no proof to check), or its transaction has fewer confirmations than Settings require',
  },
  unchecked: {
    icon: '–',
    tone: 'warn',
    label: 'unchecked',
    meaning: 'a resolved record nobody checked yet (its receipt is not in the ledger)',
  },
  failed: { icon: '✗', tone: 'bad', label: 'failed', meaning: 'a step failed at the last check' },
  none: { icon: '○', tone: 'neutral', label: 'no anchor', meaning: 'no anchor record for this receipt' },
};

/** Words for an anchor state, e.g. "verified on chain". */
export function anchorStateLabel(state: ReceiptAnchorState): string {
  return STATE[state].label;
}

/** An anchor state as a badge: an icon and words, never colour alone. */
export function AnchorStateBadge({ state, large = false }: { state: ReceiptAnchorState; large?: boolean }) {
  const style = STATE[state];
  return (
    <span
      className={`badge badge-${style.tone}${large ? ' badge-large' : ''}`}
      title={style.meaning}
      data-anchor-state={state}
    >
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {style.label}
    </span>
  );
}

/** A hash shown short (first 10 and last 6 hex digits); the button copies the whole of it. */
export function HashChip({ hash, what, prefix = '' }: { hash: string; what: string; prefix?: string }) {
  const [copied, setCopied] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const full = `${prefix}${hash}`;
  const short = hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash;
  return (
    <button
      type="button"
      className={`hash-chip hash-chip-${copied}`}
      title={`${full} (click to copy)`}
      aria-label={`Copy ${what}: ${full}`}
      data-hash={hash}
      onClick={() => {
        void copyText(full).then((done) => {
          setCopied(done ? 'copied' : 'failed');
          window.clearTimeout(timer.current);
          timer.current = window.setTimeout(() => setCopied('idle'), 2000);
        });
      }}
    >
      <span className="code">{short}</span>
      <span className="hash-chip-status" aria-live="polite">
        {copied === 'copied' ? 'copied' : copied === 'failed' ? 'select to copy' : ''}
      </span>
    </button>
  );
}

/**
 * The Merkle path as a vertical diagram from the receipt's digest to the root: each level shows
 * the pair (sorted, the path's own node marked) and the parent it makes.
 */
export function MerklePath({ proof }: { proof: MerkleProofView }) {
  return (
    <ol className="merkle-path" aria-label="Merkle path from the receipt's leaf to the root" data-testid="merkle-path">
      <li className="merkle-step merkle-digest">
        <span className="merkle-label">Receipt’s canonical SHA-256</span>
        <HashChip hash={proof.digest} what="the receipt's canonical SHA-256" />
        <span className="merkle-op" aria-hidden="true">
          ↓ SHA-256(0x00 ‖ digest)
        </span>
      </li>
      <li className="merkle-step merkle-node-step" data-level="leaf">
        <span className="merkle-label">Leaf</span>
        <span className="merkle-node merkle-own">
          <HashChip hash={proof.leaf} what="the leaf hash" />
        </span>
      </li>
      {proof.levels.map((level, index) => {
        const below = index === 0 ? proof.leaf : (proof.levels[index - 1] as { node: string }).node;
        const own = (
          <span className="merkle-node merkle-own" key="own">
            <HashChip hash={below} what={`the node at level ${index}`} />
          </span>
        );
        const sibling = (
          <span className="merkle-node merkle-sibling" key="sibling">
            <span className="merkle-tag">sibling {index + 1}</span>
            <HashChip hash={level.sibling} what={`sibling ${index + 1} from merkle_path`} />
          </span>
        );
        const last = index === proof.levels.length - 1;
        return (
          <li key={index} className="merkle-step merkle-level" data-level={index + 1}>
            <span className="merkle-label">Level {index + 1}</span>
            <span className="merkle-pair" aria-label={`pair at level ${index + 1}, smaller hash first`}>
              {level.left ? [own, sibling] : [sibling, own]}
            </span>
            <span className="merkle-op" aria-hidden="true">
              ↓ SHA-256(0x01 ‖ min ‖ max)
            </span>
            <span className={`merkle-node ${last ? 'merkle-root' : 'merkle-own'}`}>
              {last && <span className="merkle-tag">{proof.matches ? 'root' : 'folded root'}</span>}
              <HashChip
                hash={level.node}
                what={last ? 'the root the path folds to' : `the node at level ${index + 1}`}
              />
            </span>
          </li>
        );
      })}
      <li
        className={`merkle-step merkle-compare ${proof.matches ? 'merkle-match' : 'merkle-mismatch'}`}
        data-testid="merkle-result"
      >
        <span className="merkle-label">Record’s merkle_root</span>
        <HashChip hash={proof.record_root} what="the record's merkle_root" prefix="sha256:" />
        <span className="merkle-verdict">
          {proof.matches ? (
            <>
              <span aria-hidden="true">✓ </span>the path folds to the record’s root
            </>
          ) : (
            <>
              <span aria-hidden="true">✗ </span>the path folds to {proof.folded_root.slice(0, 10)}…, not to the record’s
              root
            </>
          )}
        </span>
      </li>
    </ol>
  );
}

/** A did:key shown short (its first 16 and last 6 characters). */
function shortKey(key: string): string {
  return key.length > 28 ? `${key.slice(0, 16)}…${key.slice(-6)}` : key;
}

/**
 * Which evidence a step used: step 1 is the offline proof from the receipt's own bytes; steps
 * 2-3 name the live chain RPC or the context pack (its id, head, when it was made, its signer
 * and whether a pinned block hash checked its head).
 */
export function StepEvidence({ step, rpc }: { step: AnchorStepView; rpc: string | null }) {
  if (step.step === 1) return <span data-evidence="offline">offline proof (the receipt’s bytes)</span>;
  if (step.status === 'unchecked' || step.evidence === undefined) return <span className="muted">none</span>;
  if (step.evidence === 'chain' || step.context === undefined)
    return (
      <span data-evidence="chain">
        live chain at <span className="code">{rpc ?? 'the RPC set in Settings'}</span>
      </span>
    );
  const pack = step.context;
  return (
    <span data-evidence="context" data-pack-id={pack.pack_id} data-head-trust={pack.head_trust}>
      context pack <span className="code">{pack.pack_id}</span> (head {pack.head.number}, made at {pack.made_at}, signed
      by{' '}
      <span className="code" title={pack.signer}>
        {shortKey(pack.signer)}
      </span>
      ,{' '}
      {pack.head_trust === 'checked' ? (
        <strong data-testid="head-checked">
          head checked by a pinned block{pack.pinned ? ` (#${pack.pinned.number})` : ''}
        </strong>
      ) : (
        <span data-testid="head-claimed">head claimed: no pinned block hash matched it</span>
      )}
      )
    </span>
  );
}

/** The three steps with their status, detail and the evidence each used. */
export function AnchorSteps({
  steps,
  caption,
  rpc = null,
}: {
  steps: AnchorStepView[];
  caption: string;
  /** The live RPC the check asked, for steps answered by the chain. */
  rpc?: string | null;
}) {
  const names: Record<number, string> = {
    1: 'Receipt folds to the root (offline)',
    2: 'Transaction carries the root',
    3: 'Confirmations',
  };
  return (
    <table className="table anchor-steps" data-testid="anchor-steps">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Status</th>
          <th scope="col">Detail</th>
          <th scope="col">Evidence</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr
            key={step.step}
            data-step={step.step}
            data-step-status={step.status}
            data-step-evidence={step.step === 1 ? 'offline' : (step.evidence ?? 'none')}
          >
            <td className="nowrap">
              {step.step}. {names[step.step]}
            </td>
            <td>
              <CheckBadge status={step.status} />
            </td>
            <td className="anchor-step-detail">{step.detail}</td>
            <td className="anchor-step-evidence">
              <StepEvidence step={step} rpc={rpc} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The steps to show: the last recorded check, else step 1 as recomputed now. */
function shownSteps(
  detail: AnchorDetail,
): { steps: AnchorStepView[]; caption: string; rpc: string | null } | undefined {
  if (detail.last_check !== null) {
    const fromPack = detail.last_check.steps.find((step) => step.evidence === 'context')?.context;
    return {
      steps: detail.last_check.steps,
      rpc: detail.last_check.rpc,
      caption: `Last check, ${formatInstant(detail.last_check.checked_at)}${
        detail.last_check.rpc
          ? ` against ${detail.last_check.rpc}`
          : fromPack
            ? `, steps 2-3 from context pack ${fromPack.pack_id} (no live chain)`
            : ', offline'
      }`,
    };
  }
  if (detail.step_one !== null) {
    return {
      steps: [
        detail.step_one,
        { step: 2, status: 'unchecked', detail: 'Not checked yet: use “Check on chain”.' },
        { step: 3, status: 'unchecked', detail: 'Not checked yet: use “Check on chain”.' },
      ],
      caption: 'Step 1 recomputed now',
      rpc: null,
    };
  }
  return undefined;
}

/**
 * One anchor record in full, with "Check on chain".
 *
 * @param detail - The record as `anchors.get` or `anchors.ofReceipt` gives it.
 * @param onChange - Called with the record after a check.
 */
export function AnchorPanel({ detail, onChange }: { detail: AnchorDetail; onChange?: (detail: AnchorDetail) => void }) {
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<AnchorCheckResult | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const steps = shownSteps(detail);
  const check = async (): Promise<void> => {
    setChecking(true);
    setError(undefined);
    try {
      const answer = await api['anchors.check']({ id: detail.id });
      setResult(answer);
      onChange?.(answer.anchor);
    } catch (reason) {
      setError(errorMessage(reason));
    } finally {
      setChecking(false);
    }
  };
  const notAsked = result !== undefined && !result.recorded && result.outcome.steps[1]?.status === 'unchecked';
  return (
    <article
      className="anchor-panel"
      data-testid="anchor-panel"
      data-anchor-id={detail.id}
      aria-labelledby={`anchor-${detail.id}-title`}
    >
      <header className="anchor-panel-head">
        <h3 id={`anchor-${detail.id}-title`} className="anchor-panel-title">
          Anchor {detail.id} <span className="muted">· batch {detail.batch_id}</span>
        </h3>
        <AnchorStateBadge state={detail.state} large />
      </header>

      <div className="anchor-panel-grid">
        <section aria-labelledby={`anchor-${detail.id}-tx`}>
          <h4 id={`anchor-${detail.id}-tx`} className="detail-subheading">
            Transaction
          </h4>
          <Fields
            rows={[
              ['Anchor URN', <CopyableValue key="urn" value={detail.svc_anchor} what="the anchor URN" />],
              ['Network', detail.network ?? <span className="muted">pending</span>],
              [
                'Block',
                detail.block_height === null ? <span className="muted">not yet</span> : String(detail.block_height),
              ],
              [
                'Transaction',
                detail.tx_hash === null ? (
                  <span className="muted">not yet</span>
                ) : (
                  <HashChip key="tx" hash={detail.tx_hash} what="the transaction hash" />
                ),
              ],
              [
                'Merkle root',
                detail.merkle_root === null ? (
                  <span className="muted">not yet</span>
                ) : (
                  <HashChip key="root" hash={detail.merkle_root.slice(7)} prefix="sha256:" what="the Merkle root" />
                ),
              ],
              ['Verified at (record)', detail.verified_at ?? <span className="muted">the record does not say</span>],
              [
                'Receipt',
                detail.receipt_ledger_id !== null ? (
                  <a key="receipt" href={hrefFor(['receipts', detail.receipt_ledger_id])}>
                    Receipt {detail.receipt_ledger_id}
                  </a>
                ) : (
                  <span className="muted">
                    {detail.receipt_sha256 === null ? 'the record names none' : 'not in the ledger'}
                  </span>
                ),
              ],
            ]}
          />
        </section>
        <section aria-labelledby={`anchor-${detail.id}-path`}>
          <h4 id={`anchor-${detail.id}-path`} className="detail-subheading">
            Merkle path
          </h4>
          {detail.proof !== null ? (
            <MerklePath proof={detail.proof} />
          ) : (
            <p className="muted detail-none">
              {detail.status === 'pending'
                ? 'The batch has not posted its root yet: there is no path to draw.'
                : detail.step_one === null
                  ? 'The receipt is not in the ledger: the path starts from its canonical SHA-256, so it cannot be drawn.'
                  : 'The record is not usable, so there is no path to draw (see step 1).'}
            </p>
          )}
        </section>
      </div>

      <section aria-labelledby={`anchor-${detail.id}-steps`} className="anchor-panel-steps">
        <div className="anchor-steps-head">
          <h4 id={`anchor-${detail.id}-steps`} className="detail-subheading">
            Verification steps
          </h4>
          <Button
            variant="primary"
            onClick={() => void check()}
            disabled={checking || detail.receipt_ledger_id === null}
            title="Run steps 1-3 against the chain RPC set in Settings; when it does not answer, from the imported context packs"
          >
            {checking ? 'Checking…' : 'Check on chain'}
          </Button>
        </div>
        {steps ? (
          <>
            <p className="muted anchor-steps-caption" data-testid="anchor-steps-caption">
              {steps.caption}
            </p>
            <AnchorSteps steps={steps.steps} caption={steps.caption} rpc={steps.rpc} />
          </>
        ) : (
          <p className="muted detail-none">No step has run: the receipt is not in the ledger.</p>
        )}
        <div role="status" aria-live="polite" className="anchor-check-status">
          {result && result.recorded && (
            <p className="anchor-check-note" data-testid="anchor-check-note">
              Checked{' '}
              {result.outcome.rpc
                ? `against ${result.outcome.rpc}`
                : result.outcome.steps.some((step) => step.evidence === 'context')
                  ? 'from the imported context packs (the live chain did not answer)'
                  : 'offline'}
              : <AnchorStateBadge state={result.outcome.state} />
            </p>
          )}
          {notAsked && result && (
            <div className="notice notice-warn" data-testid="anchor-not-asked">
              <p className="notice-title">Steps 2 and 3 were not checked</p>
              <p>{result.outcome.steps[1]?.detail}</p>
              <p className="notice-hint">
                {result.outcome.rpc === null ? (
                  <a href={hrefFor(['settings'])}>Set the chain RPC in Settings</a>
                ) : (
                  <a href={hrefFor(['settings'])}>Check the chain RPC in Settings</a>
                )}
                , or <a href={hrefFor(['settings'])}>import a context pack</a> that carries this transaction · The last
                recorded check was kept.
              </p>
            </div>
          )}
        </div>
        {error && (
          <div className="notice notice-error" role="alert">
            <p className="notice-title">The check could not run</p>
            <p>{error}</p>
          </div>
        )}
      </section>
    </article>
  );
}
