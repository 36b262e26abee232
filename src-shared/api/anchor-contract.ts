/**
 * The anchors part of the app API contract (PROTOCOL section 8): the words for an anchor's
 * state, the shapes the Anchors view and a receipt's anchor panel show, and the chain settings
 * with their validator. contract.ts names the methods; this module keeps their shapes together
 * so the rest of the contract stays short. The `anchors.*` inputs are TypeBox schemas
 * (contract-schemas.ts), validated through contract-validators.ts.
 *
 * States, from what the ledger recorded and the last check found:
 * - `pending`: the record is a pending URN (its batch has not posted a root yet), or the last
 *   check on chain found its transaction carrying the root with fewer confirmations than
 *   Settings require (steps 1-2 pass, step 3 short: awaiting confirmations);
 * - `unchecked`: a resolved record nobody checked yet (its receipt is not in the ledger, or
 *   nothing has run step 1 since it was stored);
 * - `verified_offline`: step 1 passed (the receipt's canonical SHA-256 folds through the
 *   Merkle path to the record's root); steps 2-3 were not checked;
 * - `verified`: steps 1-3 passed at the last check against a chain RPC;
 * - `verified_with_context`: steps 1-3 passed at the last check, steps 2-3 answered from an
 *   imported context pack (no live chain; docs/anchoring.md, "Air-gapped verification"), never
 *   counted as `verified`;
 * - `failed`: a step failed at the last check.
 * A receipt's anchor state is `none` without an anchor record, else the best state of its
 * records (verified, verified_with_context, verified_offline, pending, unchecked, failed in that order).
 */
import type { Static } from '@sinclair/typebox';
import type { ContextEvidence, StepEvidence } from '../anchor/context';
import type { JsonValue } from '../json/types';
import type { AnchorsBatchesSchema, AnchorsListSchema, IdInputSchema, JobInputSchema } from './contract-schemas';
import type { ErrorEnvelope } from './error-envelope';
import type { ReceiptFilters } from './contract';
import { ApiInputError, objectInput } from './validate';

/** Every state an anchor record can be in, best first. */
export const ANCHOR_STATES = [
  'verified',
  'verified_with_context',
  'verified_offline',
  'pending',
  'unchecked',
  'failed',
] as const;
/** An anchor record's state. */
export type AnchorState = (typeof ANCHOR_STATES)[number];
/** The verdicts a check records (`unchecked` is the absence of one). */
export const ANCHOR_CHECK_STATES = [
  'verified',
  'verified_with_context',
  'verified_offline',
  'pending',
  'failed',
] as const;
/** A recorded check's verdict. */
export type AnchorCheckState = (typeof ANCHOR_CHECK_STATES)[number];
/** A receipt's anchor state: `none`, or the best state of its anchor records. */
export const RECEIPT_ANCHOR_STATES = ['none', ...ANCHOR_STATES] as const;
/** A receipt's anchor state. */
export type ReceiptAnchorState = (typeof RECEIPT_ANCHOR_STATES)[number];

/**
 * A receipt's anchor state in the ledger's lists (the Receipts column and filter, the Overview's
 * counts), from the states of the anchor records that name it (docs/anchoring.md):
 * - `none`: no anchor record names the receipt (not anchored);
 * - `verified`: at least one of its records verified on chain (steps 1-3) at its last check;
 * - `verified_with_context`: none verified on a live chain, but at least one verified with steps
 *   2-3 answered from a context pack (migration 10): shown as such, never as `verified`;
 * - `failed`: every one of its records failed its last check;
 * - `pending`: otherwise: a record is pending, resolved but unchecked, or verified offline only,
 *   so the receipt is anchored but not yet checked on chain (or awaits confirmations).
 * It is {@link receiptAnchorState}'s best record state, told in four words; the ledger keeps it
 * in `receipts.anchor_state` (migration 8) by the same rule.
 */
export const ANCHOR_LEDGER_STATES = ['none', 'pending', 'verified', 'verified_with_context', 'failed'] as const;
/** A receipt's anchor state in the ledger's lists. */
export type AnchorLedgerState = (typeof ANCHOR_LEDGER_STATES)[number];

/**
 * A receipt's detailed anchor state: `none` without a record, else the best state of its
 * records (verified, verified_with_context, verified_offline, pending, unchecked, failed in that order).
 *
 * @param states - The states of the records that name the receipt.
 * @returns The best state, or `none`.
 */
export function receiptAnchorState(states: readonly AnchorState[]): ReceiptAnchorState {
  let best: ReceiptAnchorState = 'none';
  for (const state of states) {
    if (best === 'none' || ANCHOR_STATES.indexOf(state) < ANCHOR_STATES.indexOf(best)) best = state;
  }
  return best;
}

/**
 * The ledger state of a receipt whose records are in `states` (see {@link ANCHOR_LEDGER_STATES}).
 *
 * @param states - The states of the records that name the receipt.
 * @returns none, pending, verified, verified_with_context or failed.
 */
export function anchorLedgerState(states: readonly AnchorState[]): AnchorLedgerState {
  const best = receiptAnchorState(states);
  if (best === 'none' || best === 'verified' || best === 'verified_with_context' || best === 'failed') return best;
  return 'pending';
}

/** The default depth step 3 asks for (PROTOCOL section 8: `--confirmations`, default 1). */
export const DEFAULT_CONFIRMATIONS = 1;
/** The most confirmations the settings accept. */
export const MAX_CONFIRMATIONS = 1000;
/** The longest chain RPC URL the settings accept. */
export const MAX_RPC_URL_LENGTH = 2048;
/** An http(s) URL: scheme, a host name, IPv4 or [IPv6] host, an optional port and path (no spaces, no user info). */
const RPC_URL =
  /^https?:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?(?:[/?#][^\s]*)?$/;

/** The chain the app asks for steps 2-3 of an anchor check (Settings). */
export interface ChainSettings {
  /** A JSON-RPC URL (http or https), or null: no chain is asked, steps 2-3 stay unchecked. */
  rpc_url: string | null;
  /** The depth step 3 requires, 1 to {@link MAX_CONFIRMATIONS}. */
  confirmations: number;
}

/** One of the three steps of counterparty verification. */
export interface AnchorStepView {
  step: 1 | 2 | 3;
  status: 'pass' | 'fail' | 'unchecked';
  detail: string;
  /** Steps 2 and 3 when answered: from a live chain RPC (`chain`) or a context pack (`context`). */
  evidence?: StepEvidence;
  /** The pack that answered, when `evidence` is `context`. */
  context?: ContextEvidence;
}

/** What a recorded check found. */
export interface AnchorCheckView {
  state: AnchorCheckState;
  steps: AnchorStepView[];
  /** When (ms since the epoch). */
  checked_at: number;
  /** The chain RPC asked for steps 2-3; null when only step 1 ran. */
  rpc: string | null;
}

/** An anchor record as lists show it. */
export interface AnchorRow {
  /** The row's id in the ledger. */
  id: number;
  svc_anchor: string;
  batch_id: string;
  /** The record's form: pending or resolved URN. */
  status: 'pending' | 'resolved';
  state: AnchorState;
  /** The anchored receipt's identity (hex SHA-256 of its JCS form), when the record names it. */
  receipt_sha256: string | null;
  /** The receipt's ledger id, when it is in the ledger. */
  receipt_ledger_id: number | null;
  /** From a resolved record. */
  network: string | null;
  block_height: number | null;
  tx_hash: string | null;
  /** When the last check ran (ms), null when never. */
  checked_at: number | null;
}

/** A page of anchor records. */
export interface AnchorPage {
  rows: AnchorRow[];
  nextCursor: string | null;
}

/** One batch: how many of its records are in each state, and its transaction when resolved. */
export interface AnchorBatchView {
  batch_id: string;
  total: number;
  /** Every state, zeros included. */
  by_state: Record<AnchorState, number>;
  /** From one of its resolved records (null while the batch is pending). */
  network: string | null;
  block_height: number | null;
  tx_hash: string | null;
  /** `sha256:<hex>` as the record says. */
  merkle_root: string | null;
}

/** The batches, newest first, and the totals over every anchor. */
export interface AnchorBatchesView {
  batches: AnchorBatchView[];
  nextCursor: string | null;
  /** Every state, zeros included, over the whole ledger. */
  totals: Record<AnchorState, number>;
}

/** One level of a Merkle path, folded from the leaf: the sibling and the node the two make. */
export interface MerklePathLevel {
  /** hex of the sibling hash from merkle_path. */
  sibling: string;
  /** hex of H(0x01 || min(node, sibling) || max(node, sibling)). */
  node: string;
  /** Whether the node below was the smaller of the pair (drawn on the left). */
  left: boolean;
}

/** A Merkle path recomputed from the receipt, to draw from leaf to root. */
export interface MerkleProofView {
  /** hex of the receipt's canonical SHA-256 (canonical_sha256's bytes). */
  digest: string;
  /** hex of the leaf: H(0x00 || digest). */
  leaf: string;
  levels: MerklePathLevel[];
  /** hex of the last node (the leaf when the path is empty). */
  folded_root: string;
  /** hex of the record's merkle_root. */
  record_root: string;
  /** Whether the fold reaches the record's root. */
  matches: boolean;
}

/** One anchor record with its proof, its transaction and its steps. */
export interface AnchorDetail extends AnchorRow {
  /** The record as stored (plain JSON). */
  record: JsonValue;
  /** `sha256:<hex>` from a resolved record. */
  merkle_root: string | null;
  /** From a resolved record, as it says (TS), or null. */
  verified_at: string | null;
  /** Step 1, recomputed now from the receipt's stored bytes; null without the receipt. */
  step_one: AnchorStepView | null;
  /** The path drawn from the receipt's leaf; null without the receipt or a usable resolved record. */
  proof: MerkleProofView | null;
  /** What the last recorded check found. */
  last_check: AnchorCheckView | null;
}

/** A receipt's anchoring: its state and its records (the receipt detail's `anchor`). */
export interface ReceiptAnchor {
  state: ReceiptAnchorState;
  anchors: AnchorRow[];
}

/** `anchors.ofReceipt`: the receipt's anchor records in detail. */
export interface ReceiptAnchorDetail {
  receipt_ledger_id: number;
  receipt_sha256: string;
  state: ReceiptAnchorState;
  anchors: AnchorDetail[];
}

/** `anchors.check`: what was found, whether it was recorded, and the record afterwards. */
export interface AnchorCheckResult {
  /** The steps of this check. */
  outcome: { state: AnchorCheckState; steps: AnchorStepView[]; rpc: string | null };
  /**
   * False when the chain was not asked (no RPC in Settings) or did not answer: a check that
   * could not reach the chain says nothing about the anchor and does not replace the last one.
   */
  recorded: boolean;
  anchor: AnchorDetail;
}

/** How many receipts of the ledger are in each anchor state (`anchors.counts`). */
export interface AnchorLedgerCounts {
  /** Every state, zeros included. */
  counts: Record<AnchorLedgerState, number>;
  /** Every receipt. */
  total: number;
}

/** What a "check these on chain" job checks: the receipts a filter selects, or one batch. */
export type AnchorCheckScope = { kind: 'filter'; filters: ReceiptFilters } | { kind: 'batch'; batch_id: string };

/** The phases of a "check these on chain" job. */
export const ANCHOR_CHECK_PHASES = ['collecting', 'checking', 'done', 'failed', 'cancelled'] as const;
/** A phase of a "check these on chain" job. */
export type AnchorCheckPhase = (typeof ANCHOR_CHECK_PHASES)[number];

/**
 * A "check these on chain" job's progress (`anchors.checkStart`, `.checkProgress`,
 * `.checkCancel`), polled as an import's is. Each anchor record of the scope is checked as
 * `anchors.check` checks one (steps 1-3 against the chain RPC in Settings), and what the chain
 * answered is recorded, so each receipt's anchor state follows.
 */
export interface AnchorCheckJobProgress {
  jobId: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  phase: AnchorCheckPhase;
  scope: AnchorCheckScope;
  /** The chain RPC asked (from Settings when the job started); null: none set, the imported context packs answer. */
  rpc: string | null;
  /** Anchor records to check (grows while collecting). */
  total: number;
  /** Records checked so far. */
  checked: number;
  /** Records found verified on chain (steps 1-3 pass). */
  verified: number;
  /** Records verified with steps 2-3 from an imported context pack (the chain did not answer). */
  verified_with_context: number;
  /** Records that failed a step (recorded). */
  failed: number;
  /** Records still pending (no transaction yet, or too few confirmations). */
  pending: number;
  /** Records the chain did not answer for (nothing recorded for them). */
  unanswered: number;
  /** Records whose receipt is not in the ledger (step 1 needs its bytes; not checked). */
  skipped: number;
  /** When the job started and, once it ended, when it ended (ms since the epoch). */
  startedAt: number;
  finishedAt: number | null;
  /** Why it stopped, for `failed` and `cancelled`. */
  error?: ErrorEnvelope;
}

/** The inputs of the anchors methods: the types of their schemas (contract-schemas.ts). */
export interface AnchorApiParams {
  'anchors.batches': Static<typeof AnchorsBatchesSchema>;
  'anchors.list': Static<typeof AnchorsListSchema>;
  'anchors.get': Static<typeof IdInputSchema>;
  'anchors.ofReceipt': Static<typeof IdInputSchema>;
  'anchors.check': Static<typeof IdInputSchema>;
  /** How many receipts are in each anchor state. */
  'anchors.counts': undefined;
  /**
   * Checks on chain every anchor record of the receipts a filter selects (`filters`, `{}` for
   * every receipt) or of one batch (`batch_id`): exactly one of the two.
   */
  'anchors.checkStart': { filters: ReceiptFilters } | { batch_id: string };
  'anchors.checkProgress': Static<typeof JobInputSchema>;
  'anchors.checkCancel': Static<typeof JobInputSchema>;
}

/** The results of the anchors methods. */
export interface AnchorApiResults {
  /** Batches with counts per state, newest first (paged). */
  'anchors.batches': AnchorBatchesView;
  /** Anchor records in ledger order, filtered by batch and state (paged). */
  'anchors.list': AnchorPage;
  /** One anchor record by its ledger id, with its proof and steps. */
  'anchors.get': AnchorDetail;
  /** The anchor records of a receipt (by the receipt's ledger id). */
  'anchors.ofReceipt': ReceiptAnchorDetail;
  /** Steps 1-3 of one record against the chain RPC set in Settings. */
  'anchors.check': AnchorCheckResult;
  'anchors.counts': AnchorLedgerCounts;
  'anchors.checkStart': AnchorCheckJobProgress;
  'anchors.checkProgress': AnchorCheckJobProgress;
  'anchors.checkCancel': AnchorCheckJobProgress;
}

/**
 * Whether a value is a chain RPC URL the settings accept: http or https, a host, an optional
 * port and path, at most {@link MAX_RPC_URL_LENGTH} characters.
 *
 * @param value - Anything.
 * @returns True for such a URL.
 */
export function isRpcUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_RPC_URL_LENGTH || !RPC_URL.test(value)) return false;
  const port = /^https?:\/\/(?:[^/?#]*\]|[^/?#:]*)(?::(\d+))?/.exec(value)?.[1];
  return port === undefined || Number(port) <= 65535;
}

/**
 * Validates the `chain` member of `settings.set`: either member may be left out.
 *
 * @param value - The untrusted `chain` input.
 * @returns The members given.
 * @throws ApiInputError naming the field (`/chain/rpc_url`, `/chain/confirmations`).
 */
export function chainSettingsInput(value: unknown): Partial<ChainSettings> {
  const source = objectInput(value, ['rpc_url', 'confirmations'], 'chain');
  const result: Partial<ChainSettings> = {};
  if (source.rpc_url !== undefined) {
    const url = source.rpc_url;
    if (url === null || url === '') result.rpc_url = null;
    else if (!isRpcUrl(url)) {
      throw new ApiInputError(
        `chain.rpc_url must be an http:// or https:// URL of a chain's JSON-RPC (at most ${MAX_RPC_URL_LENGTH} characters), or null for none`,
        '/chain/rpc_url',
      );
    } else result.rpc_url = url;
  }
  if (source.confirmations !== undefined) {
    const confirmations = source.confirmations;
    if (
      typeof confirmations !== 'number' ||
      !Number.isInteger(confirmations) ||
      confirmations < 1 ||
      confirmations > MAX_CONFIRMATIONS
    ) {
      throw new ApiInputError(
        `chain.confirmations must be a whole number from 1 to ${MAX_CONFIRMATIONS}`,
        '/chain/confirmations',
      );
    }
    result.confirmations = confirmations;
  }
  return result;
}
