/**
 * "Check these on chain": every anchor record of a set of receipts (the ones a filter of the
 * receipts list selects) or of one batch, checked against the chain RPC in Settings.
 *
 * Each record is checked by {@link checkAnchorOnChain}, the same code as one record's "Check on
 * chain" (steps 1-3 through src-main/anchor's `verifyAnchor`), which records what the chain
 * answered; the ledger's triggers then move each receipt's anchor state (migration 8). Records
 * are collected first (so progress has a total), then checked a few at a time; the caller's
 * signal stops the run between records, and what was recorded stays recorded.
 *
 * Before many records are checked, the chain is asked once for its id: when it does not answer
 * (unreachable, or silent for {@link CHAIN_TIMEOUT_MS}), the run does not ask it again, and each
 * record goes to the imported context packs at once, instead of waiting for the chain each time
 * (an air-gapped workstation that kept its RPC in Settings waited 10 s a record).
 */
import type { AnchorCheckScope, ChainSettings } from '../../src-shared/api/contract';
import { ChainClient, ChainError } from '../anchor/chain';
import { anchorsOfReceipt, listAnchorStates, listReceipts } from '../ledger';
import { CHAIN_TIMEOUT_MS, checkAnchorOnChain } from './anchors';
import { ledgerFiltersOf } from './receipt-filters';
import { OperationError } from './errors';
import type { Workspace } from './workspace';

/** Records checked at the same time (each check makes a few calls to the chain). */
const CONCURRENCY = 4;
/** Receipts read per page while collecting. */
const COLLECT_PAGE = 1000;

/** What a run has done so far. */
export interface AnchorCheckCounts {
  total: number;
  checked: number;
  verified: number;
  /** Verified with steps 2-3 from an imported context pack (the chain did not answer). */
  verified_with_context: number;
  failed: number;
  pending: number;
  unanswered: number;
  skipped: number;
}

/** A progress event: the phase and the counts. */
export type AnchorCheckEvent = AnchorCheckCounts & { phase: 'collecting' | 'checking' };

/**
 * The refusal of a check that nothing can answer: no chain RPC is set and no context pack is
 * imported.
 *
 * @returns The error (`refused`, `no_chain_rpc`).
 */
export function noChainRpc(): OperationError {
  return new OperationError(
    'refused',
    'no_chain_rpc',
    'No chain RPC is set and no context pack is imported, so nothing can be checked on chain. Set the chain RPC URL in Settings (Chain), or import a context pack there, then check again.',
    { details: [{ path: '/chain/rpc_url', message: 'no chain RPC is set in Settings' }] },
  );
}

function cancelled(): OperationError {
  return new OperationError('cancelled', 'cancelled', 'The check was cancelled; what was checked is recorded.');
}

/**
 * Why the chain at `rpcUrl` cannot be asked, when one call finds it unreachable (no connection,
 * or no answer in time); undefined when it answers, even with an error.
 */
async function chainUnreachable(rpcUrl: string): Promise<string | undefined> {
  try {
    await new ChainClient(rpcUrl, { timeoutMs: CHAIN_TIMEOUT_MS }).chainId();
    return undefined;
  } catch (error) {
    if (error instanceof ChainError && error.kind === 'unreachable')
      return `The chain could not be asked (${error.message}), so this run did not ask it again for steps 2 and 3.`;
    return undefined;
  }
}

async function yieldToLoop(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** The anchor records (ids) of a scope, and how many were left out because their receipt is missing. */
async function collect(
  workspace: Workspace,
  scope: AnchorCheckScope,
  signal: AbortSignal | undefined,
  onCount: (total: number) => void,
): Promise<{ ids: number[]; skipped: number }> {
  const ids: number[] = [];
  let skipped = 0;
  let after: string | undefined;
  if (scope.kind === 'batch') {
    do {
      const page = listAnchorStates(workspace.ledger.readable, {
        batch_id: scope.batch_id,
        limit: COLLECT_PAGE,
        ...(after === undefined ? {} : { after }),
      });
      for (const row of page.rows) {
        if (row.receipt_ledger_id === null) skipped += 1;
        else ids.push(row.id);
      }
      after = page.nextCursor ?? undefined;
      onCount(ids.length);
      if (signal?.aborted) throw cancelled();
      await yieldToLoop();
    } while (after !== undefined);
    return { ids, skipped };
  }
  const filters = ledgerFiltersOf(scope.filters);
  do {
    const page = listReceipts(workspace.ledger.readable, {
      filters,
      sort: { column: 'imported_at', direction: 'asc' },
      limit: COLLECT_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    for (const row of page.rows) {
      if (row.anchor_state === 'none') continue;
      for (const anchor of anchorsOfReceipt(workspace.ledger.readable, row.receipt_sha256)) ids.push(anchor.id);
    }
    after = page.nextCursor ?? undefined;
    onCount(ids.length);
    if (signal?.aborted) throw cancelled();
    await yieldToLoop();
  } while (after !== undefined);
  return { ids, skipped };
}

/**
 * Checks every anchor record of a scope on chain and records what the chain answered.
 *
 * @param workspace - The open workspace.
 * @param scope - The receipts a filter selects, or a batch.
 * @param chain - The chain settings; `rpc_url` must be set unless context packs are imported.
 * @param options - `signal` to stop between records; `onProgress` after each page and record;
 *   `contextPacks`: context packs are imported, so a check without an RPC is answered from them.
 * @returns The final counts.
 * @throws OperationError `refused` without an RPC or a context pack; `cancelled` when the signal fired.
 */
export async function checkAnchorsOnChain(
  workspace: Workspace,
  scope: AnchorCheckScope,
  chain: ChainSettings,
  options: { signal?: AbortSignal; onProgress?: (event: AnchorCheckEvent) => void; contextPacks?: boolean } = {},
): Promise<AnchorCheckCounts> {
  if (chain.rpc_url === null && options.contextPacks !== true) throw noChainRpc();
  const counts: AnchorCheckCounts = {
    total: 0,
    checked: 0,
    verified: 0,
    failed: 0,
    pending: 0,
    unanswered: 0,
    verified_with_context: 0,
    skipped: 0,
  };
  const report = (phase: AnchorCheckEvent['phase']): void => options.onProgress?.({ ...counts, phase });
  const { ids, skipped } = await collect(workspace, scope, options.signal, (total) => {
    counts.total = total;
    report('collecting');
  });
  counts.total = ids.length;
  counts.skipped = skipped;
  report('checking');
  // One call first: a chain that cannot be reached is not waited for again for every record.
  const unreachable = chain.rpc_url !== null && ids.length > 1 ? await chainUnreachable(chain.rpc_url) : undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ids.length) {
      if (options.signal?.aborted) return;
      const id = ids[next] as number;
      next += 1;
      try {
        const result = await checkAnchorOnChain(
          workspace,
          id,
          chain,
          unreachable === undefined ? {} : { chainUnreachable: unreachable },
        );
        if (!result.recorded) counts.unanswered += 1;
        else if (result.outcome.state === 'verified') counts.verified += 1;
        else if (result.outcome.state === 'verified_with_context') counts.verified_with_context += 1;
        else if (result.outcome.state === 'pending') counts.pending += 1;
        else counts.failed += 1;
      } catch (error) {
        // The record's receipt left the ledger, or the record itself did, since collecting.
        if (error instanceof OperationError) counts.skipped += 1;
        else throw error;
      }
      counts.checked += 1;
      report('checking');
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, Math.max(1, ids.length)) }, worker));
  if (options.signal?.aborted) throw cancelled();
  return counts;
}
