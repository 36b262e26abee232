/**
 * Anchors in the workspace: their state, their proofs, and checks against a chain (PROTOCOL
 * section 8), for the app's Anchors view and a receipt's anchor panel.
 *
 * - Step 1 (offline) is recomputed from the receipt's stored bytes: the strict parse, JCS,
 *   SHA-256 (canonical_sha256), the URN suffix, the fold of merkle_path to merkle_root.
 * - After an import, {@link checkAnchorsOffline} runs step 1 once for every resolved anchor
 *   no check has judged yet and records the verdict, so lists filter and count by a stored
 *   state and never verify per row while paging.
 * - {@link checkAnchorOnChain} runs steps 1-3 through src-main/anchor (`verifyAnchor`), the
 *   only code that talks to a chain, and records the verdict when the chain answered.
 */
import {
  receiptAnchorState,
  type AnchorBatchesView,
  type AnchorLedgerCounts,
  type AnchorCheckResult,
  type AnchorCheckState,
  type AnchorDetail,
  type AnchorPage,
  type AnchorRow,
  type AnchorState,
  type AnchorStepView,
  type ChainSettings,
  type MerkleProofView,
  type ReceiptAnchor,
  type ReceiptAnchorDetail,
  type ReceiptAnchorState,
} from '../../src-shared/api/contract';
import { anchorStepOne, anchorVerdict, readAnchorRecord, type AnchorStep } from '../../src-shared/anchor/proof';
import { compareBytes, concatBytes, equalBytes, hexEncode, utf8Encode } from '../../src-shared/crypto/encoding';
import { jcsTree, parseJsonBytes, type JsonValue } from '../../src-shared/json';
import { verifyAnchor } from '../anchor/verify-anchor';
import { verifyAnchorWithContext } from './context';
import {
  anchorStateCounts,
  anchorStateTotals,
  anchorsOfReceipt,
  getAnchorState,
  getReceipt,
  listAnchorBatches,
  listAnchorStates,
  recordAnchorCheck,
  uncheckedAnchors,
  type AnchorStateRecord,
} from '../ledger';
import { OperationError } from './errors';
import type { Workspace } from './workspace';

/** How many anchors one transaction of the offline sweep records. */
const SWEEP_BATCH = 500;
/** How long a check waits for the chain's answer to each call. */
export const CHAIN_TIMEOUT_MS = 10_000;

type Sha256 = (data: Uint8Array) => Uint8Array;

/**
 * canonical_sha256 of a stored receipt: SHA-256 of the JCS form of its bytes.
 *
 * @param sha256 - SHA-256 of the workspace's provider.
 * @param raw - The receipt's bytes as stored.
 * @returns The 32 bytes, or the reason they cannot be computed (the bytes are not strict JSON).
 */
export function canonicalDigest(sha256: Sha256, raw: Uint8Array): { digest: Uint8Array } | { error: string } {
  try {
    return { digest: sha256(utf8Encode(jcsTree(parseJsonBytes(raw)))) };
  } catch (error) {
    return {
      error: `The receipt's stored bytes are not strict JSON, so its canonical SHA-256 cannot be computed: ${(error as Error).message}`,
    };
  }
}

/**
 * Step 1 of a record for a receipt's stored bytes.
 *
 * @param sha256 - SHA-256.
 * @param raw - The receipt's stored bytes.
 * @param record - The anchor record (plain JSON).
 * @returns The step, the digest (when computable) and whether the record is pending.
 */
export function stepOneOfReceipt(
  sha256: Sha256,
  raw: Uint8Array,
  record: unknown,
): { step: AnchorStep; digest: Uint8Array | null; pending: boolean } {
  const canonical = canonicalDigest(sha256, raw);
  if ('error' in canonical)
    return { step: { step: 1, status: 'fail', detail: canonical.error }, digest: null, pending: false };
  const one = anchorStepOne(sha256, canonical.digest, record);
  return { step: one.step, digest: canonical.digest, pending: one.pending };
}

/**
 * The Merkle path of a resolved record folded from a digest's leaf, level by level, to draw.
 *
 * Leaf = SHA-256(0x00 || digest); each level's node = SHA-256(0x01 || min(node, sibling) ||
 * max(node, sibling)), exactly as `anchorFold` computes it (src-shared/crypto/merkle.ts).
 *
 * @param sha256 - SHA-256.
 * @param digest - canonical_sha256's 32 bytes.
 * @param record - The anchor record (plain JSON).
 * @returns The levels and whether they reach the record's root; null for a record that is not a
 *   usable resolved one.
 */
export function merkleProof(sha256: Sha256, digest: Uint8Array, record: unknown): MerkleProofView | null {
  const read = readAnchorRecord(record);
  if (read.status !== 'resolved') return null;
  let node = sha256(concatBytes(Uint8Array.of(0x00), digest));
  const leaf = node;
  const levels = read.record.merkle_path.map((sibling) => {
    const left = compareBytes(node, sibling) <= 0;
    node = sha256(
      left ? concatBytes(Uint8Array.of(0x01), node, sibling) : concatBytes(Uint8Array.of(0x01), sibling, node),
    );
    return { sibling: hexEncode(sibling), node: hexEncode(node), left };
  });
  return {
    digest: hexEncode(digest),
    leaf: hexEncode(leaf),
    levels,
    folded_root: hexEncode(node),
    record_root: hexEncode(read.record.merkle_root),
    matches: equalBytes(node, read.record.merkle_root),
  };
}

/** The verdict to record for steps that were run. */
function verdictOf(steps: readonly AnchorStep[], pending: boolean): AnchorCheckState {
  return anchorVerdict(steps, pending) as AnchorCheckState;
}

/** Steps 2-3 left unchecked, with why. */
function uncheckedRest(detail: string): AnchorStep[] {
  return [
    { step: 2, status: 'unchecked', detail },
    { step: 3, status: 'unchecked', detail },
  ];
}

/** Why steps 2-3 are unchecked after step 1. */
function offlineReason(step: AnchorStep, pending: boolean): string {
  if (pending) return 'The anchor is pending: there is no transaction to check yet.';
  if (step.status !== 'pass') return 'Step 1 failed, so the transaction was not looked up.';
  return 'Checked offline: the chain was not asked. Use “Check on chain” with a chain RPC set in Settings.';
}

/**
 * Runs step 1 for every resolved anchor that no check has judged yet and whose receipt is in
 * the ledger, and records the verdicts (verified_offline or failed).
 *
 * Runs in transactions of {@link SWEEP_BATCH} anchors and yields to the event loop between
 * them, so the app keeps answering while a large import's anchors are checked.
 *
 * @param workspace - The open workspace.
 * @param options - `limit`: the most anchors to check in this call (default all).
 * @returns How many anchors were checked.
 */
export async function checkAnchorsOffline(workspace: Workspace, options: { limit?: number } = {}): Promise<number> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (!(limit > 0)) throw new RangeError('checkAnchorsOffline: limit must be positive');
  const sha256: Sha256 = (data) => workspace.crypto.sha256(data);
  let checked = 0;
  let afterId = 0;
  while (checked < limit) {
    const batch = uncheckedAnchors(workspace.ledger.readable, {
      afterId,
      limit: Math.min(SWEEP_BATCH, limit - checked),
    });
    if (batch.length === 0) break;
    const at = Date.now();
    const results = batch.map((anchor) => {
      const one = stepOneOfReceipt(sha256, anchor.raw, anchor.record);
      const steps = [one.step, ...uncheckedRest(offlineReason(one.step, one.pending))];
      return { anchor, steps, state: verdictOf(steps, one.pending) };
    });
    workspace.ledger.runInTransaction((database) => {
      for (const { anchor, steps, state } of results)
        recordAnchorCheck(database, anchor.id, { svc_anchor: anchor.svc_anchor, state, steps, rpc: null, at });
    });
    checked += batch.length;
    afterId = (batch[batch.length - 1] as { id: number }).id;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return checked;
}

/** The network, block, transaction and root a record names, when it is a usable resolved one. */
function transactionOf(record: unknown): Pick<AnchorRow, 'network' | 'block_height' | 'tx_hash'> & {
  merkle_root: string | null;
  verified_at: string | null;
} {
  const read = readAnchorRecord(record);
  if (read.status !== 'resolved')
    return { network: null, block_height: null, tx_hash: null, merkle_root: null, verified_at: null };
  return {
    network: read.record.network,
    block_height: read.record.block_height,
    tx_hash: read.record.tx_hash,
    merkle_root: `sha256:${hexEncode(read.record.merkle_root)}`,
    verified_at: read.record.verified_at,
  };
}

function toRow(stored: AnchorStateRecord): AnchorRow {
  const { network, block_height: blockHeight, tx_hash: txHash } = transactionOf(stored.record);
  return {
    id: stored.id,
    svc_anchor: stored.svc_anchor,
    batch_id: stored.batch_id,
    status: stored.status,
    state: stored.state,
    receipt_sha256: stored.receipt_sha256,
    receipt_ledger_id: stored.receipt_ledger_id,
    network,
    block_height: blockHeight,
    tx_hash: txHash,
    checked_at: stored.last_check?.checked_at ?? null,
  };
}

/**
 * Batches, newest first, with their counts per state and their transaction.
 *
 * Runs step 1 first for up to a few thousand anchors nobody checked yet (anchors the service
 * resolved since the last import), so the view fills in as it is opened.
 *
 * @param workspace - The open workspace.
 * @param query - `after` (cursor), `limit` (default 50).
 * @returns The page and the totals over every anchor.
 */
export async function anchorBatches(
  workspace: Workspace,
  query: { after?: string; limit?: number } = {},
): Promise<AnchorBatchesView> {
  await checkAnchorsOffline(workspace, { limit: 2000 });
  const page = listAnchorBatches(workspace.ledger.readable, query);
  return {
    batches: page.rows.map((batch) => {
      const {
        network,
        block_height: blockHeight,
        tx_hash: txHash,
        merkle_root: merkleRoot,
      } = transactionOf(batch.resolved_record);
      return {
        batch_id: batch.batch_id,
        total: batch.total,
        by_state: batch.by_state,
        network,
        block_height: blockHeight,
        tx_hash: txHash,
        merkle_root: merkleRoot,
      };
    }),
    nextCursor: page.nextCursor,
    totals: anchorStateTotals(workspace.ledger.readable),
  };
}

/**
 * How many receipts of the ledger are in each anchor state (exact counts, kept by the ledger).
 *
 * @param workspace - The open workspace.
 * @returns The counts and the number of receipts.
 */
export function anchorLedgerCounts(workspace: Workspace): AnchorLedgerCounts {
  const counts = anchorStateCounts(workspace.ledger.readable);
  return { counts, total: counts.none + counts.pending + counts.verified + counts.failed };
}

/**
 * Anchor records in ledger order, filtered by batch and state.
 *
 * @param workspace - The open workspace.
 * @param query - `batch_id`, `state`, `after` (cursor), `limit` (default 100).
 * @returns The page.
 */
export function listAnchorRows(
  workspace: Workspace,
  query: { batch_id?: string; state?: AnchorState; after?: string; limit?: number } = {},
): AnchorPage {
  const page = listAnchorStates(workspace.ledger.readable, query);
  return { rows: page.rows.map(toRow), nextCursor: page.nextCursor };
}

/** The receipt's stored bytes, when it is in the ledger. */
function receiptBytes(workspace: Workspace, receiptSha256: string | null): Uint8Array | undefined {
  if (receiptSha256 === null) return undefined;
  return getReceipt(workspace.ledger.readable, receiptSha256)?.raw;
}

function detailOf(workspace: Workspace, stored: AnchorStateRecord): AnchorDetail {
  const sha256: Sha256 = (data) => workspace.crypto.sha256(data);
  const raw = receiptBytes(workspace, stored.receipt_sha256);
  const one = raw === undefined ? undefined : stepOneOfReceipt(sha256, raw, stored.record);
  const transaction = transactionOf(stored.record);
  return {
    ...toRow(stored),
    record: stored.record as JsonValue,
    merkle_root: transaction.merkle_root,
    verified_at: transaction.verified_at,
    step_one: one?.step ?? null,
    proof: one?.digest ? merkleProof(sha256, one.digest, stored.record) : null,
    last_check: stored.last_check,
  };
}

/**
 * Records step 1 for a record no check has judged yet (the first time it is shown), so its
 * stored state catches up with what the panel shows.
 */
function recordFirstLook(workspace: Workspace, stored: AnchorStateRecord): AnchorStateRecord {
  if (stored.last_check !== null || stored.status !== 'resolved') return stored;
  const raw = receiptBytes(workspace, stored.receipt_sha256);
  if (raw === undefined) return stored;
  const one = stepOneOfReceipt((data) => workspace.crypto.sha256(data), raw, stored.record);
  const steps = [one.step, ...uncheckedRest(offlineReason(one.step, one.pending))];
  workspace.ledger.runInTransaction((database) =>
    recordAnchorCheck(database, stored.id, {
      svc_anchor: stored.svc_anchor,
      state: verdictOf(steps, one.pending),
      steps,
      rpc: null,
    }),
  );
  return getAnchorState(workspace.ledger.readable, stored.id) ?? stored;
}

function storedAnchor(workspace: Workspace, id: number): AnchorStateRecord {
  const stored = getAnchorState(workspace.ledger.readable, id);
  if (stored === undefined)
    throw new OperationError('not_found', 'not_found', `There is no anchor ${id} in the ledger.`, {
      details: [{ path: '/id', message: 'no such anchor' }],
    });
  return stored;
}

/**
 * One anchor record with its proof, its transaction and its steps.
 *
 * @param workspace - The open workspace.
 * @param id - The anchor's ledger id.
 * @returns The detail.
 * @throws OperationError not_found.
 */
export function anchorDetail(workspace: Workspace, id: number): AnchorDetail {
  return detailOf(workspace, recordFirstLook(workspace, storedAnchor(workspace, id)));
}

/** A receipt's state: the best state of its anchors, `none` without one. */
function receiptState(rows: readonly { state: AnchorState }[]): ReceiptAnchorState {
  return receiptAnchorState(rows.map((row) => row.state));
}

/**
 * A receipt's anchoring for its detail: its state and its records.
 *
 * @param workspace - The open workspace.
 * @param receiptSha256 - The receipt's identity.
 * @returns The state (`none` without a record) and the records.
 */
export function receiptAnchor(workspace: Workspace, receiptSha256: string): ReceiptAnchor {
  const rows = anchorsOfReceipt(workspace.ledger.readable, receiptSha256).map((stored) =>
    toRow(recordFirstLook(workspace, stored)),
  );
  return { state: receiptState(rows), anchors: rows };
}

/**
 * A receipt's anchor records in detail, for its anchor panel.
 *
 * @param workspace - The open workspace.
 * @param receiptLedgerId - The receipt's ledger id.
 * @returns Its state and every record with proof and steps.
 * @throws OperationError not_found.
 */
export function receiptAnchorDetail(workspace: Workspace, receiptLedgerId: number): ReceiptAnchorDetail {
  const receipt = getReceipt(workspace.ledger.readable, receiptLedgerId);
  if (receipt === undefined)
    throw new OperationError('not_found', 'not_found', `There is no receipt ${receiptLedgerId} in the ledger.`, {
      details: [{ path: '/id', message: 'no such receipt' }],
    });
  const anchors = anchorsOfReceipt(workspace.ledger.readable, receipt.receipt_sha256).map((stored) =>
    detailOf(workspace, recordFirstLook(workspace, stored)),
  );
  return {
    receipt_ledger_id: receipt.id,
    receipt_sha256: receipt.receipt_sha256,
    state: receiptState(anchors),
    anchors,
  };
}

/**
 * Whether steps 1-2 passed and only the depth (step 3) is short: the transaction carries the
 * root but has fewer confirmations than Settings require. The app records that as `pending`
 * (awaiting confirmations; a later check can verify it), not `failed` (docs/anchoring.md).
 */
function awaitingConfirmations(steps: readonly AnchorStepView[]): boolean {
  return steps[0]?.status === 'pass' && steps[1]?.status === 'pass' && steps[2]?.status === 'fail';
}

/**
 * Checks one anchor: step 1 from the receipt's bytes, steps 2-3 against the chain.
 *
 * The live chain is asked first. When it cannot answer (no RPC set, or the chain is not
 * reachable) and an imported context pack carries the anchor's transaction, steps 2-3 are
 * answered from the pack (`verified_with_context`, each step naming the pack; `rpc` null).
 *
 * The verdict is recorded when it says something about the anchor: step 1 failed, the record
 * is pending, or the chain or a pack answered steps 2-3. Otherwise the outcome says why steps
 * 2-3 are unchecked and the last recorded check stays.
 *
 * @param workspace - The open workspace.
 * @param id - The anchor's ledger id.
 * @param chain - The RPC (null: none set) and the confirmations step 3 requires.
 * @param options - `chainUnreachable`: why the RPC is not asked (a run of many checks found it
 *   unreachable once: anchor-check-many.ts); steps 2-3 then go to the packs at once.
 * @returns What this check found, whether it was recorded, and the anchor afterwards.
 * @throws OperationError not_found; refused when the anchor's receipt is not in the ledger.
 */
export async function checkAnchorOnChain(
  workspace: Workspace,
  id: number,
  chain: ChainSettings,
  options: { chainUnreachable?: string } = {},
): Promise<AnchorCheckResult> {
  const stored = storedAnchor(workspace, id);
  const raw = receiptBytes(workspace, stored.receipt_sha256);
  if (raw === undefined) {
    throw new OperationError(
      'refused',
      'receipt_missing',
      `Anchor ${id} cannot be checked: its receipt is not in the ledger, and step 1 needs the receipt's bytes. Import the receipt, then check again.`,
      {
        details: [{ path: '/id', message: 'the anchored receipt is not in the ledger' }],
      },
    );
  }
  const sha256: Sha256 = (data) => workspace.crypto.sha256(data);
  const canonical = canonicalDigest(sha256, raw);
  let steps: AnchorStepView[];
  let state: AnchorCheckState;
  /** The live RPC whose answers the steps carry; null when a context pack answered. */
  let asked = options.chainUnreachable === undefined ? chain.rpc_url : null;
  if ('error' in canonical) {
    steps = [
      { step: 1, status: 'fail', detail: canonical.error },
      ...uncheckedRest('Step 1 failed, so the transaction was not looked up.'),
    ];
    state = 'failed';
  } else {
    const verification = await verifyAnchor({
      sha256,
      digest: canonical.digest,
      record: stored.record,
      confirmations: chain.confirmations,
      timeoutMs: CHAIN_TIMEOUT_MS,
      ...(options.chainUnreachable !== undefined
        ? { uncheckedReason: options.chainUnreachable }
        : chain.rpc_url === null
          ? { uncheckedReason: 'No chain RPC is set in Settings, so steps 2 and 3 were not checked.' }
          : { rpcUrl: chain.rpc_url }),
    });
    steps = verification.steps;
    state = awaitingConfirmations(steps) ? 'pending' : (verification.anchor_status as AnchorCheckState);
    if (steps[0]?.status === 'pass' && steps[1]?.status === 'unchecked') {
      // The live chain did not answer (no RPC set, or unreachable): the imported context packs
      // answer steps 2-3 when one carries the transaction (docs/anchoring.md, "In the app").
      const fromPacks = await verifyAnchorWithContext(workspace, {
        digest: canonical.digest,
        record: stored.record,
        confirmations: chain.confirmations,
      });
      if (fromPacks.steps.some((step) => step.evidence === 'context')) {
        steps = fromPacks.steps;
        state = awaitingConfirmations(steps) ? 'pending' : (fromPacks.anchor_status as AnchorCheckState);
        asked = null;
      }
    }
  }
  const answered = !(steps[0]?.status === 'pass' && steps[1]?.status === 'unchecked');
  let recorded = false;
  if (answered) {
    recorded = workspace.ledger.runInTransaction((database) =>
      recordAnchorCheck(database, stored.id, { svc_anchor: stored.svc_anchor, state, steps, rpc: asked }),
    );
  }
  return { outcome: { state, steps, rpc: asked }, recorded, anchor: anchorDetail(workspace, stored.id) };
}
