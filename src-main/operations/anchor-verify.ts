/**
 * Counterparty verification of an anchored receipt from files (PROTOCOL section 8): what
 * `evroom anchor verify RECEIPT.json RECORD.json` runs.
 *
 * - The receipt is read with the strict parser (duplicate names, invalid UTF-8, a BOM, ... are
 *   refused with the JSON Pointer and offset); its digest is SHA-256 of its JCS form, which is
 *   canonical_sha256 and equals the ledger's receipt_sha256.
 * - The record file is either one anchor record (spec 2.6, pending or resolved) or an evidence
 *   bundle's `anchors/<batch_id>.json` (src-main/evidence/anchors-file.ts); from a bundle file
 *   the record whose URN suffix matches the receipt is taken ({@link pickAnchorRecord}).
 * - Steps 1 to 3 are src-main/anchor/verify-anchor.ts; this module only reads the inputs.
 *
 * Inputs that cannot be read as what they claim to be are an {@link OperationError}
 * (`invalid_input`, exit 2 in the CLI); a record that is read but wrong is a failed step 1.
 */
import { anchorSuffix, parseAnchorUrn } from '../../src-shared/anchor/urn';
import { hexEncode } from '../../src-shared/crypto/encoding';
import { formatJsonError, jcsTree, JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonNode, JsonValue } from '../../src-shared/json/types';
import { verifyAnchor, type AnchorVerification } from '../anchor/verify-anchor';
import { AnchorsFileError, parseAnchorsFile } from '../evidence/anchors-file';
import type { PinnedBlock } from '../../src-shared/anchor/context';
import { requireContextSigner } from '../anchor/context-pack';
import { openContextPackFile } from './context';
import { OperationError } from './errors';
import { nodeCrypto } from './workspace';

/** What {@link pickAnchorRecord} found in a record file. */
export interface PickedAnchorRecord {
  /** The anchor record (plain JSON) to verify. */
  record: unknown;
  /** `record` when the file is one record, `anchors_file` when it is a bundle's batch file. */
  source: 'record' | 'anchors_file';
  /** A note for the user about the choice (from an anchors file), or null. */
  note: string | null;
}

/** How to verify (see {@link verifyAnchorFiles}). */
export interface AnchorVerifyFilesOptions {
  /** The receipt's bytes, exactly as in its file. */
  receipt: Uint8Array;
  /** The record file's bytes: one anchor record, or an anchors/<batch_id>.json file. */
  record: Uint8Array;
  /** The chain JSON-RPC for steps 2 and 3; omit with `offline`. */
  rpcUrl?: string;
  /** Required depth for step 3; default 1. */
  confirmations?: number;
  /** Check step 1 only; steps 2 and 3 are `unchecked`. */
  offline?: boolean;
  /** Per chain call; default 10 s. */
  timeoutMs?: number;
  /** A context pack (zip) to answer steps 2 and 3 from, with no network; `rpcUrl` is then not used. */
  contextPack?: string;
  /** Block hashes pinned for this check (of the pack's chain). */
  pins?: readonly Omit<PinnedBlock, 'chain_id'>[];
  /** The did:key the context pack must be signed by; another signer fails steps 2 and 3. */
  contextSigner?: string;
}

/** The outcome of {@link verifyAnchorFiles}: the verification and how the record was found. */
export interface AnchorVerifyFilesResult extends AnchorVerification {
  /** canonical_sha256 of the receipt as hex (= the ledger's receipt_sha256). */
  receipt_sha256: string;
  /** The URN of the record that was checked, when it has one. */
  svc_anchor: string | null;
  /** A note about the choice of record in an anchors file, or null. */
  note: string | null;
}

function parseStrict(bytes: Uint8Array, what: 'receipt' | 'record'): JsonNode {
  try {
    return parseJsonBytes(bytes);
  } catch (error) {
    if (!(error instanceof JsonParseError)) throw error;
    const code = what === 'receipt' ? 'receipt_malformed' : 'anchor_record_malformed';
    const label = what === 'receipt' ? 'The receipt' : 'The anchor record file';
    throw new OperationError('invalid_input', code, `${label} is not strict JSON: ${formatJsonError(error)}`, {
      facts: { path: error.path },
    });
  }
}

/**
 * canonical_sha256 of a receipt: SHA-256 of the JCS form of its strictly parsed JSON.
 *
 * @param bytes - The receipt exactly as received.
 * @returns The 32-byte digest (its hex is the ledger's receipt_sha256).
 * @throws OperationError `receipt_malformed` (invalid_input) when the bytes are not strict JSON,
 *   with the JSON Pointer of the problem.
 */
export function receiptCanonicalDigest(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('receiptCanonicalDigest expects the receipt bytes');
  const tree = parseStrict(bytes, 'receipt');
  if (tree.type !== 'object') {
    throw new OperationError('invalid_input', 'receipt_malformed', 'The receipt must be a JSON object.', {
      facts: { path: '' },
    });
  }
  return nodeCrypto().sha256(new TextEncoder().encode(jcsTree(tree)));
}

function isAnchorsFileShape(tree: JsonNode): boolean {
  if (tree.type !== 'object') return false;
  const names = tree.members.map(([name]) => name);
  return names.includes('anchors') && !names.includes('svc_anchor');
}

/**
 * The anchor record to verify from a record file.
 *
 * A file with `anchors` (and no `svc_anchor`) is an evidence bundle's anchors file; it is checked
 * by the bundle rules (src-main/evidence/anchors-file.ts) against its own `batch_id`, and the
 * record for this receipt is the one whose `receipt_sha256` is the receipt's digest, or else
 * whose URN ends with the receipt's suffix (its `receipt_sha256` null). A resolved record is
 * preferred to a pending one. Anything else is taken as one anchor record, whose shape step 1
 * checks.
 *
 * @param bytes - The record file's bytes.
 * @param digest - The receipt's canonical_sha256 (32 bytes).
 * @returns The record and where it came from.
 * @throws OperationError (invalid_input) when the file is not strict JSON, is an anchors file
 *   that breaks the bundle rules, has no record for this receipt, or has two different resolved
 *   records for it.
 */
export function pickAnchorRecord(bytes: Uint8Array, digest: Uint8Array): PickedAnchorRecord {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('pickAnchorRecord expects the file bytes');
  const tree = parseStrict(bytes, 'record');
  if (!isAnchorsFileShape(tree)) return { record: toPlain(tree), source: 'record', note: null };
  const batchNode = tree.type === 'object' ? tree.members.find(([name]) => name === 'batch_id')?.[1] : undefined;
  const batchId = batchNode?.type === 'string' ? batchNode.value : '';
  let file;
  try {
    file = parseAnchorsFile(bytes, batchId);
  } catch (error) {
    if (!(error instanceof AnchorsFileError)) throw error;
    throw new OperationError(
      'invalid_input',
      'anchors_file_invalid',
      `The anchors file cannot be used at ${error.path || '/'}: ${error.message}`,
      {
        facts: { path: error.path },
      },
    );
  }
  const digestHex = hexEncode(digest);
  const suffix = anchorSuffix(digest);
  const candidates = file.anchors.filter(
    (entry) =>
      entry.receipt_sha256 === digestHex ||
      (entry.receipt_sha256 === null && parseAnchorUrn(entry.svc_anchor)?.suffix === suffix),
  );
  if (candidates.length === 0) {
    throw new OperationError(
      'invalid_input',
      'anchor_not_in_file',
      `The anchors file of batch ${file.batch_id} holds ${file.anchors.length} records, none for this receipt (receipt_sha256 ${digestHex}, URN suffix ${suffix}).`,
    );
  }
  const resolved = candidates.filter((entry) => entry.status === 'resolved');
  const distinct = new Set(resolved.map((entry) => JSON.stringify(entry.record)));
  if (distinct.size > 1) {
    throw new OperationError(
      'invalid_input',
      'anchor_ambiguous',
      `The anchors file of batch ${file.batch_id} holds ${distinct.size} different resolved records for this receipt; save the one to check in a file of its own.`,
    );
  }
  const chosen = resolved[0] ?? candidates[0];
  const record = (chosen as { record: { [name: string]: JsonValue } }).record;
  const index = file.anchors.indexOf(chosen as (typeof file.anchors)[number]);
  return {
    record,
    source: 'anchors_file',
    note: `Record /anchors/${index} of the anchors file of batch ${file.batch_id}.`,
  };
}

/**
 * Verifies an anchored receipt from its files: step 1 offline, steps 2 and 3 on the chain
 * unless `offline`.
 *
 * @param options - See {@link AnchorVerifyFilesOptions}.
 * @returns The verdict, the three steps, the receipt's digest and the record's URN.
 * @throws OperationError (invalid_input) for inputs that cannot be read (see above); a record
 *   that is read but wrong is not thrown but reported as a failed step 1.
 */
export async function verifyAnchorFiles(options: AnchorVerifyFilesOptions): Promise<AnchorVerifyFilesResult> {
  const digest = receiptCanonicalDigest(options.receipt);
  const picked = pickAnchorRecord(options.record, digest);
  const opened = options.contextPack === undefined ? undefined : await openContextPackFile(options.contextPack);
  const context =
    opened === undefined || options.contextSigner === undefined
      ? opened
      : requireContextSigner(opened, options.contextSigner);
  const verification = await verifyAnchor({
    ...(context === undefined
      ? {}
      : {
          context,
          pins: (options.pins ?? []).map((pin) => ({ ...pin, chain_id: context.manifest.chain_id })),
        }),
    sha256: nodeCrypto().sha256,
    digest,
    record: picked.record,
    ...(options.rpcUrl === undefined ? {} : { rpcUrl: options.rpcUrl }),
    ...(options.confirmations === undefined ? {} : { confirmations: options.confirmations }),
    ...(options.offline === true
      ? { offline: true, uncheckedReason: 'Offline (--offline): the chain was not asked.' }
      : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const urn = (picked.record as { svc_anchor?: unknown } | null)?.svc_anchor;
  return {
    ...verification,
    receipt_sha256: hexEncode(digest),
    svc_anchor: typeof urn === 'string' ? urn : null,
    note: picked.note,
  };
}
