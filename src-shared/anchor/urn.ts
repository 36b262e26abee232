/**
 * Anchor URNs and batch ids (PROTOCOL section 8, spec section 2.6): the one place their rules live.
 *
 * - Pending: `urn:svc:anchor:pending:<batch_id>:<suffix>`, returned at once by `POST /v1/anchor`.
 * - Resolved: `urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>` once the batch's
 *   Merkle root is on chain (spec 2.6 shows `base` as the network).
 * - `batch_id`: the batch's opening minute, `YYYY-MM-DDThh:mmZ` (UTC), a real calendar minute.
 * - `suffix`: the first 16 hex characters (8 bytes) of the submitted digest, that is the hex of
 *   canonical_sha256's bytes; a pending URN and its resolved form end with the same suffix.
 *
 * Where PROTOCOL leaves the spelling open, one spelling is chosen, because the ledger keys
 * anchors by URN and two spellings of one anchor would be two rows:
 * - hex is lowercase (suffix and tx_hash);
 * - `tx_hash` is an EVM transaction hash, `0x` and 64 hex characters (the chain is EVM);
 * - `block_height` is decimal without sign or leading zeros, at most 2^53 - 1;
 * - `network` is a lowercase chain name: letters, digits and inner hyphens, starting with a
 *   letter, at most 64 characters (`base`, `base-sepolia`, `local`), and never `pending`.
 *
 * Isomorphic: no Node names, so the renderer and the reference verifier page use the same rules.
 */
import { hexEncode } from '../crypto/encoding';
import { isTimestamp } from '../verify/timestamp';

/** Every anchor URN starts with this. */
export const ANCHOR_URN_PREFIX = 'urn:svc:anchor:';
/** A pending anchor URN starts with this. */
export const PENDING_ANCHOR_URN_PREFIX = 'urn:svc:anchor:pending:';
/** No valid anchor URN is longer (the longest possible is about 190 characters). */
export const MAX_ANCHOR_URN_LENGTH = 512;
/** Hex characters of the digest a URN ends with. */
export const ANCHOR_SUFFIX_LENGTH = 16;
/** The shape of a batch id; {@link isBatchId} also checks the calendar. */
export const BATCH_ID_PATTERN = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\dZ$/;

const BATCH_ID_SOURCE = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z';
const SUFFIX_PATTERN = /^[0-9a-f]{16}$/;
const NETWORK_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MAX_NETWORK_LENGTH = 64;
const TX_HASH_PATTERN = /^0x[0-9a-f]{64}$/;
const BLOCK_HEIGHT_PATTERN = /^(?:0|[1-9]\d{0,15})$/;
const PENDING_PATTERN = new RegExp(`^urn:svc:anchor:pending:(${BATCH_ID_SOURCE}):([0-9a-f]{16})$`);
const RESOLVED_PATTERN = /^urn:svc:anchor:([a-z0-9-]+):(\d+):(0x[0-9a-f]{64}):([0-9a-f]{16})$/;

/** A pending anchor URN's parts. */
export interface PendingAnchorUrn {
  status: 'pending';
  batch_id: string;
  suffix: string;
}

/** A resolved anchor URN's parts. */
export interface ResolvedAnchorUrn {
  status: 'resolved';
  network: string;
  block_height: number;
  tx_hash: string;
  suffix: string;
}

/** An anchor URN's parts; `status` says which form it is. */
export type ParsedAnchorUrn = PendingAnchorUrn | ResolvedAnchorUrn;

/**
 * Whether a value is a batch id: `YYYY-MM-DDThh:mmZ` naming a real calendar minute.
 *
 * @param value - Anything.
 * @returns True for a batch id.
 * @example isBatchId('2026-11-22T04:00Z') // true; '2026-02-30T04:00Z' is false
 */
export function isBatchId(value: unknown): value is string {
  return typeof value === 'string' && BATCH_ID_PATTERN.test(value) && isTimestamp(`${value.slice(0, 16)}:00Z`);
}

/**
 * The batch id of an instant: the UTC minute it falls in.
 *
 * The batcher calls it with the instant a batch opens; every digest submitted while the batch
 * is open belongs to that batch id, whatever the minute of its own submission.
 *
 * @param date - The instant.
 * @returns `YYYY-MM-DDThh:mmZ`.
 * @throws TypeError if `date` is not a valid Date.
 * @throws RangeError if its year is outside 0000-9999 (a batch id has four year digits).
 */
export function batchIdOf(date: Date): string {
  if (!(date instanceof Date) || !Number.isFinite(date.getTime()))
    throw new TypeError('batchIdOf expects a valid Date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError('batchIdOf: the year must be 0000 to 9999');
  // toISOString writes years 0000-9999 as four digits: its first 16 characters are the minute.
  return `${date.toISOString().slice(0, 16)}Z`;
}

/**
 * The suffix of a digest: the hex of its first 8 bytes.
 *
 * @param digest - The 32 bytes of SHA-256(JCS(receipt)) (canonical_sha256 decoded).
 * @returns 16 lowercase hex characters.
 * @throws TypeError if `digest` is not a Uint8Array; RangeError if it is not 32 bytes.
 */
export function anchorSuffix(digest: Uint8Array): string {
  if (!(digest instanceof Uint8Array)) throw new TypeError('anchorSuffix expects the digest bytes');
  if (digest.length !== 32)
    throw new RangeError(`anchorSuffix expects a 32-byte SHA-256 digest, got ${digest.length} bytes`);
  return hexEncode(digest.subarray(0, ANCHOR_SUFFIX_LENGTH / 2));
}

/**
 * Whether a value is a network name as a resolved URN carries it.
 *
 * @param value - Anything.
 * @returns True for a lowercase chain name other than `pending`.
 */
export function isAnchorNetwork(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length <= MAX_NETWORK_LENGTH &&
    value !== 'pending' &&
    NETWORK_PATTERN.test(value)
  );
}

/**
 * The parts of an anchor URN.
 *
 * @param value - Anything.
 * @returns The parts, or undefined when the value is not a pending or resolved anchor URN by
 *   the rules above.
 * @example parseAnchorUrn('urn:svc:anchor:pending:2026-11-22T04:00Z:0123456789abcdef')
 *   // { status: 'pending', batch_id: '2026-11-22T04:00Z', suffix: '0123456789abcdef' }
 */
export function parseAnchorUrn(value: unknown): ParsedAnchorUrn | undefined {
  if (typeof value !== 'string' || value.length > MAX_ANCHOR_URN_LENGTH || !value.startsWith(ANCHOR_URN_PREFIX))
    return undefined;
  if (value.startsWith(PENDING_ANCHOR_URN_PREFIX)) {
    const match = PENDING_PATTERN.exec(value);
    if (match === null) return undefined;
    const [, batchId, suffix] = match as unknown as [string, string, string];
    return isBatchId(batchId) ? { status: 'pending', batch_id: batchId, suffix } : undefined;
  }
  const match = RESOLVED_PATTERN.exec(value);
  if (match === null) return undefined;
  const [, network, height, txHash, suffix] = match as unknown as [string, string, string, string, string];
  if (!isAnchorNetwork(network) || !BLOCK_HEIGHT_PATTERN.test(height)) return undefined;
  const blockHeight = Number(height);
  if (!Number.isSafeInteger(blockHeight)) return undefined;
  return { status: 'resolved', network, block_height: blockHeight, tx_hash: txHash, suffix };
}

/**
 * Whether a value is an anchor URN, pending or resolved.
 *
 * @param value - Anything.
 * @returns True when {@link parseAnchorUrn} accepts it.
 */
export function isAnchorUrn(value: unknown): value is string {
  return parseAnchorUrn(value) !== undefined;
}

/**
 * Whether a value is a pending anchor URN.
 *
 * @param value - Anything.
 * @returns True for `urn:svc:anchor:pending:<batch_id>:<suffix>`.
 */
export function isPendingAnchorUrn(value: unknown): value is string {
  return parseAnchorUrn(value)?.status === 'pending';
}

/**
 * Whether a value is a resolved anchor URN.
 *
 * @param value - Anything.
 * @returns True for `urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>`.
 */
export function isResolvedAnchorUrn(value: unknown): value is string {
  return parseAnchorUrn(value)?.status === 'resolved';
}

/**
 * The pending URN of a digest in a batch.
 *
 * @param batchId - The batch id.
 * @param suffix - The digest's suffix ({@link anchorSuffix}).
 * @returns `urn:svc:anchor:pending:<batch_id>:<suffix>`.
 * @throws RangeError if the batch id or the suffix breaks its rule.
 */
export function pendingAnchorUrn(batchId: string, suffix: string): string {
  if (!isBatchId(batchId)) throw new RangeError('pendingAnchorUrn: not a batch id (YYYY-MM-DDThh:mmZ)');
  if (typeof suffix !== 'string' || !SUFFIX_PATTERN.test(suffix))
    throw new RangeError('pendingAnchorUrn: the suffix must be 16 lowercase hex characters');
  return `${PENDING_ANCHOR_URN_PREFIX}${batchId}:${suffix}`;
}

/**
 * The resolved URN of an anchored digest.
 *
 * @param parts - Network, block height, transaction hash and the digest's suffix.
 * @returns `urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>`.
 * @throws RangeError if a part breaks its rule.
 */
export function resolvedAnchorUrn(parts: Omit<ResolvedAnchorUrn, 'status'>): string {
  if (typeof parts !== 'object' || parts === null) throw new TypeError('resolvedAnchorUrn expects the URN parts');
  const { network, block_height: blockHeight, tx_hash: txHash, suffix } = parts;
  if (!isAnchorNetwork(network))
    throw new RangeError('resolvedAnchorUrn: the network must be a lowercase chain name other than "pending"');
  if (!Number.isSafeInteger(blockHeight) || blockHeight < 0)
    throw new RangeError('resolvedAnchorUrn: block_height must be a non-negative integer');
  if (typeof txHash !== 'string' || !TX_HASH_PATTERN.test(txHash))
    throw new RangeError('resolvedAnchorUrn: tx_hash must be 0x and 64 lowercase hex characters');
  if (typeof suffix !== 'string' || !SUFFIX_PATTERN.test(suffix))
    throw new RangeError('resolvedAnchorUrn: the suffix must be 16 lowercase hex characters');
  return `${ANCHOR_URN_PREFIX}${network}:${blockHeight}:${txHash}:${suffix}`;
}

/**
 * Whether a resolved URN is the resolution of a pending one: both name the same digest.
 *
 * @param pending - A pending URN.
 * @param resolved - A resolved URN.
 * @returns True when both are valid, of their forms, and end with the same suffix.
 */
export function resolvesPendingUrn(pending: unknown, resolved: unknown): boolean {
  const from = parseAnchorUrn(pending);
  const to = parseAnchorUrn(resolved);
  return from?.status === 'pending' && to?.status === 'resolved' && from.suffix === to.suffix;
}
