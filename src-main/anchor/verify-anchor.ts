/**
 * Counterparty verification of an anchored receipt (PROTOCOL section 8): step 1 offline
 * (src-shared/anchor/proof.ts), steps 2 and 3 against a chain's JSON-RPC.
 *
 * - Step 2: the transaction named by the record exists, is mined in the record's block, is a
 *   zero-value transaction from an account to itself, succeeded, and its data is exactly
 *   `0x4556524101` followed by the record's merkle_root.
 * - Step 3: the chain's latest block is at least `confirmations - 1` blocks past it
 *   (confirmations = latest - block_height + 1).
 *
 * Offline (or with no RPC), steps 2 and 3 are `unchecked` with the reason, never `pass`. With a
 * context pack they are answered from the pack (src-main/anchor/context-check.ts) with no network,
 * and the verdict is `verified_with_context`, never `verified`.
 */
import {
  anchorStepOne,
  anchorVerdict,
  encodeAnchorHash,
  type AnchorStatus,
  type AnchorStep,
  type ResolvedAnchorRecord,
} from '../../src-shared/anchor/proof';
import type { HashFunction } from '../../src-shared/crypto/merkle';
import { equalBytes, hexEncode } from '../../src-shared/crypto/encoding';
import type { PinnedBlock } from '../../src-shared/anchor/context';
import { ChainClient, ChainError, rootFromCalldata } from './chain';
import type { OpenedContextPack } from './context-pack';

/** The outcome `evroom anchor verify --json` prints. */
export interface AnchorVerification {
  anchor_status: AnchorStatus;
  steps: AnchorStep[];
}

/** How to verify. */
export interface VerifyAnchorOptions {
  sha256: HashFunction;
  /** canonical_sha256's 32 bytes. */
  digest: Uint8Array;
  /** The anchor record (plain JSON). */
  record: unknown;
  /** The chain to ask for steps 2-3; omitted or `offline` leaves them unchecked. */
  rpcUrl?: string;
  /** Required depth; default 1. */
  confirmations?: number;
  offline?: boolean;
  /** Why steps 2-3 are unchecked when offline or without an RPC (shown to the user). */
  uncheckedReason?: string;
  timeoutMs?: number;
  /**
   * A context pack to answer steps 2 and 3 from, with no network (docs/anchoring.md,
   * "Air-gapped verification"); `rpcUrl` and `offline` are then not used.
   */
  context?: OpenedContextPack;
  /** Block hashes pinned from a trusted source, checked against the pack's headers. */
  pins?: readonly PinnedBlock[];
}

/**
 * Step 2 against a chain.
 *
 * @param chain - The client.
 * @param record - The resolved record.
 * @returns The step.
 * @throws ChainError `unreachable` when the chain does not answer.
 */
export async function anchorStepTwo(chain: ChainClient, record: ResolvedAnchorRecord): Promise<AnchorStep> {
  const fail = (detail: string): AnchorStep => ({ step: 2, status: 'fail', detail });
  const tx = await chain.transaction(record.tx_hash);
  if (tx === undefined) return fail(`The chain at ${chain.rpcUrl} has no transaction ${record.tx_hash}.`);
  if (tx.blockNumber === null) return fail(`Transaction ${record.tx_hash} is not mined yet.`);
  if (tx.blockNumber !== record.block_height)
    return fail(
      `Transaction ${record.tx_hash} is in block ${tx.blockNumber}, not block ${record.block_height} as the record says.`,
    );
  const root = rootFromCalldata(tx.input);
  if (root === undefined)
    return fail(`Transaction ${record.tx_hash} carries no anchor root: its data is not 0x4556524101 and 32 bytes.`);
  if (!equalBytes(root, record.merkle_root)) {
    return fail(
      `Transaction ${record.tx_hash} carries root sha256:${hexEncode(root)}, not merkle_root ${encodeAnchorHash(record.merkle_root)}.`,
    );
  }
  if (tx.to === null || tx.to !== tx.from)
    return fail(`Transaction ${record.tx_hash} is not from the anchor account to itself.`);
  if (tx.value !== 0n) return fail(`Transaction ${record.tx_hash} moves value; an anchor transaction has value 0.`);
  const status = await chain.receiptStatus(record.tx_hash);
  if (status !== 'success') return fail(`Transaction ${record.tx_hash} did not succeed (${status ?? 'no receipt'}).`);
  return {
    step: 2,
    status: 'pass',
    detail: `Transaction ${record.tx_hash} in block ${tx.blockNumber}, from ${tx.from} to itself, carries merkle_root.`,
  };
}

/**
 * Step 3 against a chain.
 *
 * @param chain - The client.
 * @param record - The resolved record.
 * @param confirmations - The required depth.
 * @returns The step.
 */
export async function anchorStepThree(
  chain: ChainClient,
  record: ResolvedAnchorRecord,
  confirmations: number,
): Promise<AnchorStep> {
  const latest = await chain.blockNumber();
  const depth = latest >= record.block_height ? latest - record.block_height + 1 : 0;
  if (depth >= confirmations)
    return {
      step: 3,
      status: 'pass',
      detail: `${depth} confirmations (latest block ${latest}); ${confirmations} required.`,
    };
  return {
    step: 3,
    status: 'fail',
    detail: `${depth} confirmations (latest block ${latest}); ${confirmations} required.`,
  };
}

/**
 * All three steps.
 *
 * @param options - See {@link VerifyAnchorOptions}.
 * @returns The verdict and each step. A chain that does not answer leaves steps 2-3
 *   `unchecked` (status `failed` unless `offline` was asked for: the user asked for a check
 *   that could not be made), with the reason.
 */
export async function verifyAnchor(options: VerifyAnchorOptions): Promise<AnchorVerification> {
  const confirmations = options.confirmations ?? 1;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1)
    throw new RangeError('confirmations must be a positive integer');
  const one = anchorStepOne(options.sha256, options.digest, options.record);
  const unchecked = (detail: string): AnchorStep[] => [
    { step: 2, status: 'unchecked', detail },
    { step: 3, status: 'unchecked', detail },
  ];
  if (one.resolved === null) {
    const why = one.pending
      ? 'The anchor is pending: there is no transaction to check yet.'
      : 'Step 1 failed, so the transaction was not looked up.';
    const steps = [one.step, ...unchecked(why)];
    return { anchor_status: anchorVerdict(steps, one.pending), steps };
  }
  if (options.context !== undefined) {
    // Loaded here, not at start: the `@ethereumjs` packages it needs are slow to load.
    const { checkContextAnchor } = await import('./context-check');
    const [two, three] = await checkContextAnchor(options.context, one.resolved, confirmations, options.pins ?? []);
    const steps = [one.step, two, three];
    return { anchor_status: anchorVerdict(steps, false), steps };
  }
  if (options.offline === true || options.rpcUrl === undefined) {
    const why =
      options.uncheckedReason ??
      (options.offline === true
        ? 'Offline: the chain was not asked.'
        : 'No chain RPC is configured: the chain was not asked.');
    const steps = [one.step, ...unchecked(why)];
    return { anchor_status: anchorVerdict(steps, false), steps };
  }
  try {
    const chain = new ChainClient(options.rpcUrl, { timeoutMs: options.timeoutMs });
    const two = await anchorStepTwo(chain, one.resolved);
    const three: AnchorStep =
      two.status === 'pass'
        ? await anchorStepThree(chain, one.resolved, confirmations)
        : { step: 3, status: 'unchecked', detail: 'Step 2 failed, so the depth was not checked.' };
    const fromChain = (step: AnchorStep): AnchorStep =>
      step.status === 'unchecked' ? step : { ...step, evidence: 'chain' };
    const steps = [one.step, fromChain(two), fromChain(three)];
    return { anchor_status: anchorVerdict(steps, false), steps };
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    const steps = [one.step, ...unchecked(`The chain could not be asked: ${error.message}`)];
    return { anchor_status: 'failed', steps };
  }
}
