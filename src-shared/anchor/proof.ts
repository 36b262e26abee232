/**
 * Anchor records and the offline step of counterparty verification (PROTOCOL section 8, step 1).
 *
 * A resolved record (spec section 2.6) carries `svc_anchor` (the resolved URN), `batch_id`,
 * `network`, `block_height`, `tx_hash`, `merkle_root` and `merkle_path` (each `sha256:<hex>`)
 * and `verified_at`. Step 1 recomputes canonical_sha256 from the receipt (SHA-256 of its JCS
 * form), checks that the URN ends with that digest's suffix, and folds `merkle_path` from the
 * digest's leaf to `merkle_root`. Steps 2 and 3 (the transaction, its depth) need a chain and live
 * in src-main/anchor; this module is isomorphic so the app, the CLI and the browser verifier
 * agree on step 1.
 *
 * Decisions where PROTOCOL is silent (docs/protocol.md, anchoring):
 * - a hash in a record is `sha256:` and 64 lowercase hex characters; anything else is refused;
 * - a record's URN parts (network, block height, transaction, suffix) must equal its own
 *   `network`, `block_height` and `tx_hash` members, or step 1 fails;
 * - a path has at most {@link MAX_ANCHOR_PATH_LENGTH} elements (a batch of 2^64 hashes).
 */
import { anchorFold, type HashFunction } from '../crypto/merkle';
import { equalBytes, hexEncode, lowerHexDecode } from '../crypto/encoding';
import type { ContextEvidence, StepEvidence } from './context';
import { anchorSuffix, isBatchId, parseAnchorUrn } from './urn';

/** The data of an anchor transaction starts with "EVRA" and version 1 (PROTOCOL section 8). */
export const ANCHOR_DATA_PREFIX_HEX = '4556524101';
/** No real batch has a longer path. */
export const MAX_ANCHOR_PATH_LENGTH = 64;
const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** A step's outcome, as `evroom anchor verify --json` prints it. */
export type AnchorStepStatus = 'pass' | 'fail' | 'unchecked';

/** One of the three steps. */
export interface AnchorStep {
  step: 1 | 2 | 3;
  status: AnchorStepStatus;
  detail: string;
  /** Steps 2 and 3 when answered: from a live chain RPC or from a context pack. */
  evidence?: StepEvidence;
  /** The pack that answered, when `evidence` is `context`. */
  context?: ContextEvidence;
}

/**
 * The verdict over the three steps. `verified_with_context`: steps 2 and 3 passed from a context
 * pack (docs/anchoring.md), never from a live chain; `verified` stays for a live chain.
 */
export type AnchorStatus = 'verified' | 'verified_with_context' | 'verified_offline' | 'failed' | 'pending';

/** A resolved anchor record, its hashes decoded. */
export interface ResolvedAnchorRecord {
  svc_anchor: string;
  batch_id: string | null;
  network: string;
  block_height: number;
  tx_hash: string;
  merkle_root: Uint8Array;
  merkle_path: Uint8Array[];
  verified_at: string | null;
  suffix: string;
}

/**
 * The pending anchor record (PROTOCOL section 8): what `POST /v1/anchor` answers with 202, what
 * the ledger stores until the batch posts, and what `GET /v1/anchor/<urn>` answers meanwhile.
 * The one definition: the engine, the operations and the doors all use it.
 */
export interface PendingAnchorRecord {
  /** `urn:svc:anchor:pending:<batch_id>:<suffix>`. */
  svc_anchor: string;
  /** The batch's opening minute, `YYYY-MM-DDThh:mmZ`. */
  batch_id: string;
  /** Expected seconds until the batch posts. */
  eta_seconds: number;
}

/** A pending record as {@link readAnchorRecord} reads it: the eta may be absent, the suffix comes from the URN. */
export interface ReadPendingAnchorRecord extends Omit<PendingAnchorRecord, 'eta_seconds'> {
  eta_seconds: number | null;
  suffix: string;
}

/** What {@link readAnchorRecord} makes of a record. */
export type ReadAnchorRecord =
  | { status: 'resolved'; record: ResolvedAnchorRecord }
  | { status: 'pending'; record: ReadPendingAnchorRecord }
  | { status: 'invalid'; path: string; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Decodes `sha256:<hex>`.
 *
 * @param value - Anything.
 * @returns The 32 bytes, or undefined when the value is not `sha256:` and 64 lowercase hex.
 */
export function decodeAnchorHash(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || value.length !== 71 || !HASH_PATTERN.test(value)) return undefined;
  return lowerHexDecode(value.slice(7));
}

/**
 * Encodes 32 bytes as `sha256:<hex>`.
 *
 * @param bytes - A SHA-256 value.
 * @returns `sha256:` and 64 lowercase hex characters.
 */
export function encodeAnchorHash(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array) || bytes.length !== 32) throw new RangeError('encodeAnchorHash expects 32 bytes');
  return `sha256:${hexEncode(bytes)}`;
}

/**
 * Reads an anchor record (pending or resolved) and checks its shape.
 *
 * @param value - The record as parsed JSON (plain values).
 * @returns Its form and decoded members, or `invalid` with a JSON Pointer and a message.
 */
export function readAnchorRecord(value: unknown): ReadAnchorRecord {
  const invalid = (path: string, message: string): ReadAnchorRecord => ({ status: 'invalid', path, message });
  if (!isObject(value)) return invalid('', 'An anchor record must be a JSON object.');
  const urn = parseAnchorUrn(value.svc_anchor);
  if (urn === undefined)
    return invalid(
      '/svc_anchor',
      'svc_anchor must be an anchor URN (urn:svc:anchor:pending:<batch_id>:<suffix> or urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>).',
    );
  const svcAnchor = value.svc_anchor as string;
  if (urn.status === 'pending') {
    if (value.batch_id !== undefined && value.batch_id !== urn.batch_id)
      return invalid(
        '/batch_id',
        `batch_id ${JSON.stringify(value.batch_id)} is not the batch the URN names (${urn.batch_id}).`,
      );
    const eta = value.eta_seconds;
    if (eta !== undefined && (!Number.isSafeInteger(eta) || (eta as number) < 0))
      return invalid('/eta_seconds', 'eta_seconds must be a non-negative integer.');
    return {
      status: 'pending',
      record: {
        svc_anchor: svcAnchor,
        batch_id: urn.batch_id,
        eta_seconds: (eta as number | undefined) ?? null,
        suffix: urn.suffix,
      },
    };
  }
  if (value.network !== urn.network)
    return invalid(
      '/network',
      `network ${JSON.stringify(value.network)} is not the network the URN names (${urn.network}).`,
    );
  if (value.block_height !== urn.block_height)
    return invalid(
      '/block_height',
      `block_height ${JSON.stringify(value.block_height)} is not the block the URN names (${urn.block_height}).`,
    );
  if (value.tx_hash !== urn.tx_hash)
    return invalid('/tx_hash', `tx_hash ${JSON.stringify(value.tx_hash)} is not the transaction the URN names.`);
  const root = decodeAnchorHash(value.merkle_root);
  if (root === undefined)
    return invalid('/merkle_root', 'merkle_root must be sha256: and 64 lowercase hex characters.');
  if (!Array.isArray(value.merkle_path))
    return invalid('/merkle_path', 'merkle_path must be an array of sha256:<hex> strings.');
  if (value.merkle_path.length > MAX_ANCHOR_PATH_LENGTH)
    return invalid(
      '/merkle_path',
      `merkle_path has ${value.merkle_path.length} elements; at most ${MAX_ANCHOR_PATH_LENGTH} are allowed.`,
    );
  const path: Uint8Array[] = [];
  for (const [index, element] of value.merkle_path.entries()) {
    const decoded = decodeAnchorHash(element);
    if (decoded === undefined)
      return invalid(
        `/merkle_path/${index}`,
        'Each merkle_path element must be sha256: and 64 lowercase hex characters.',
      );
    path.push(decoded);
  }
  const batchId = value.batch_id;
  if (batchId !== undefined && !isBatchId(batchId)) return invalid('/batch_id', 'batch_id must be YYYY-MM-DDThh:mmZ.');
  const verifiedAt = value.verified_at;
  if (verifiedAt !== undefined && typeof verifiedAt !== 'string')
    return invalid('/verified_at', 'verified_at must be a timestamp string.');
  return {
    status: 'resolved',
    record: {
      svc_anchor: svcAnchor,
      batch_id: (batchId as string | undefined) ?? null,
      network: urn.network,
      block_height: urn.block_height,
      tx_hash: urn.tx_hash,
      merkle_root: root,
      merkle_path: path,
      verified_at: (verifiedAt as string | undefined) ?? null,
      suffix: urn.suffix,
    },
  };
}

/** What step 1 found. */
export interface AnchorStepOne {
  step: AnchorStep;
  /** The record when it is resolved and well formed (steps 2-3 need it). */
  resolved: ResolvedAnchorRecord | null;
  /** True when the record is pending (not yet on chain). */
  pending: boolean;
}

/**
 * Step 1, offline: the receipt's digest, the URN suffix, the fold to the root.
 *
 * @param sha256 - SHA-256 from a provider.
 * @param digest - canonical_sha256's 32 bytes: SHA-256 of the receipt's JCS form.
 * @param record - The anchor record (plain JSON).
 * @returns The step and, when it passes, the decoded record for steps 2 and 3.
 */
export function anchorStepOne(sha256: HashFunction, digest: Uint8Array, record: unknown): AnchorStepOne {
  if (!(digest instanceof Uint8Array) || digest.length !== 32)
    throw new RangeError('anchorStepOne expects the 32-byte digest');
  const read = readAnchorRecord(record);
  const fail = (detail: string): AnchorStepOne => ({
    step: { step: 1, status: 'fail', detail },
    resolved: null,
    pending: false,
  });
  if (read.status === 'invalid') return fail(`The anchor record is not usable at ${read.path || '/'}: ${read.message}`);
  const suffix = anchorSuffix(digest);
  if (read.record.suffix !== suffix) {
    return fail(
      `The URN ends with ${read.record.suffix}, but the receipt's canonical SHA-256 starts with ${suffix}: this record anchors another receipt.`,
    );
  }
  if (read.status === 'pending') {
    return {
      step: {
        step: 1,
        status: 'unchecked',
        detail: `The anchor is pending in batch ${read.record.batch_id}: it has no Merkle proof yet.`,
      },
      resolved: null,
      pending: true,
    };
  }
  const folded = anchorFold(sha256, digest, read.record.merkle_path);
  if (!equalBytes(folded, read.record.merkle_root)) {
    return fail(
      `Folding merkle_path (${read.record.merkle_path.length} steps) from the receipt's leaf gives sha256:${hexEncode(folded)}, not merkle_root ${encodeAnchorHash(read.record.merkle_root)}.`,
    );
  }
  return {
    step: {
      step: 1,
      status: 'pass',
      detail: `The receipt's canonical SHA-256 (sha256:${hexEncode(digest)}) folds through ${read.record.merkle_path.length} path steps to merkle_root.`,
    },
    resolved: read.record,
    pending: false,
  };
}

/**
 * The verdict of the three steps.
 *
 * @param steps - Steps 1 to 3 in order.
 * @param pending - Whether the record was pending.
 * @returns `verified` when all pass on a live chain; `verified_with_context` when all pass
 *   and step 2 or 3 was answered from a context pack; `verified_offline` when step 1 passes and 2-3 are
 *   unchecked; `pending` for a pending record whose suffix matched; otherwise `failed`.
 */
export function anchorVerdict(steps: readonly AnchorStep[], pending: boolean): AnchorStatus {
  if (steps.some((step) => step.status === 'fail')) return 'failed';
  if (pending) return 'pending';
  if (steps.every((step) => step.status === 'pass'))
    return steps.some((step) => step.evidence === 'context') ? 'verified_with_context' : 'verified';
  if (steps[0]?.status === 'pass' && steps.slice(1).every((step) => step.status === 'unchecked'))
    return 'verified_offline';
  return 'failed';
}

/**
 * The transaction data that carries a root.
 *
 * @param root - The Merkle root.
 * @returns `0x4556524101` followed by the root's hex.
 */
export function anchorCalldata(root: Uint8Array): `0x${string}` {
  if (!(root instanceof Uint8Array) || root.length !== 32)
    throw new RangeError('anchorCalldata expects the 32-byte root');
  return `0x${ANCHOR_DATA_PREFIX_HEX}${hexEncode(root)}`;
}
