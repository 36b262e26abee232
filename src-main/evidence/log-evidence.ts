/**
 * A served tenant's log evidence in a bundle (issue 28; docs/logs.md, "The service's log"):
 * `log/checkpoint.txt`, the newest checkpoint the service signed of the tenant's log with the
 * cosignatures it was given, and `log/proofs.json` (format `evroom.log-evidence/1`): every leaf
 * from the first to the last receipt issued in the period with its inclusion proof, the two
 * boundary leaves just outside it with their whole receipts and proofs, and consistency proofs
 * from earlier signed sizes the caller named.
 *
 * Read from the same snapshot of the ledger as the rest of the bundle, so the bundle's receipts
 * are exactly the leaves the proofs name, under a checkpoint that covers them all.
 */
import { hexEncode, utf8Decode } from '../../src-shared/crypto';
import type { HashFunction } from '../../src-shared/crypto/merkle';
import { parseCheckpoint, parseNote } from '../../src-shared/crypto/signed-note';
import { tlogConsistencyProof, tlogInclusionProof } from '../../src-shared/crypto/tlog';
import type { JsonValue } from '../../src-shared/json/types';
import type { JsonObject } from '../../src-shared/verify/fields';
import { timestampToMillis } from '../../src-shared/verify/timestamp';
import {
  getReceipt,
  getTlogCheckpoint,
  latestTlogCheckpoint,
  listTlogCosignatures,
  listTlogLeaves,
  listTlogReceiptRows,
  listTlogReceiptSha256,
  readTlogNodes,
  tlogLastIndexBefore,
  tlogNodeSource,
  tlogPeriodIndices,
  type ReadableDB,
} from '../ledger/index';
import { BLOCK_LEAVES, forEachInclusionProof, inclusionProofLength } from './log-proofs';

export { LOG_CHECKPOINT_NAME, LOG_PROOFS_NAME } from './bundle-layout';
/** proofs.json's format. */
export const LOG_EVIDENCE_FORMAT = 'evroom.log-evidence/1';
/** Earlier sizes a bundle proves its checkpoint consistent with, at most. */
export const MAX_CONSISTENT_WITH = 16;

/** What a served tenant's evidence carries of its log (the export's `log` option). */
export interface LogEvidenceRequest {
  tenantId: string;
  /** The period's TS bounds (`since <= issued_at < until`); null: open. */
  since: string | null;
  until: string | null;
  /** Earlier signed sizes to prove the checkpoint consistent with. */
  consistentWith?: readonly number[];
}

/** The log's files and the receipts the bundle must carry, in leaf order. */
export interface LogEvidence {
  checkpoint: string;
  /**
   * Makes proofs.json's bytes (UTF-8, the text `JSON.stringify(proofs, null, 2)` and a newline
   * would give), reading the snapshot again: call it while the snapshot is open, once.
   */
  proofs: () => Uint8Array;
  /** proofs.json's length in bytes, known before it is made. */
  proofs_bytes: number;
  /** The ledger rows of the leaves first_index..last_index. */
  receipts: number[];
  tree_size: number;
}

/** A log evidence that cannot be made (no checkpoint, a size never signed): nothing is written. */
export class LogEvidenceError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'LogEvidenceError';
  }
}

function documentOf(readable: ReadableDB, receipt: number): JsonValue {
  const stored = getReceipt(readable, receipt);
  if (stored === undefined) throw new Error(`Receipt row ${receipt} of the log is missing from the ledger.`);
  return JSON.parse(utf8Decode(stored.raw)) as JsonValue;
}

/**
 * Reads the log evidence of a tenant's period from a snapshot of the ledger.
 *
 * @param readable - The export's snapshot.
 * @param sha256 - SHA-256.
 * @param request - Tenant, period, earlier sizes.
 * @returns The two files' text and the receipts to carry.
 * @throws LogEvidenceError when the tenant's log has no checkpoint, or an earlier size was never
 *   signed or is beyond the checkpoint.
 */
export function readLogEvidence(readable: ReadableDB, sha256: HashFunction, request: LogEvidenceRequest): LogEvidence {
  const tenant = request.tenantId;
  const checkpoint = latestTlogCheckpoint(readable, tenant);
  if (checkpoint === undefined) throw new LogEvidenceError(`The log of tenant ${tenant} has no signed checkpoint.`);
  const size = checkpoint.tree_size;
  const note = parseNote(checkpoint.note);
  const origin = parseCheckpoint(note.text).origin;
  const keyName = note.signatures[0]?.name;
  if (keyName === undefined) throw new Error('The stored checkpoint carries no signature.');
  const cosignatures = listTlogCosignatures(readable, tenant, size);
  const served = checkpoint.note + cosignatures.map((entry) => `${entry.line}\n`).join('');
  const node = tlogNodeSource(readable, tenant);
  const since = request.since === null ? null : timestampToMillis(request.since);
  const until = request.until === null ? null : timestampToMillis(request.until);

  const range = size === 0 ? null : tlogPeriodIndices(readable, tenant, size, { since, until });
  let beforeIndex: number | null;
  let afterIndex: number | null;
  if (range !== null) {
    beforeIndex = range.first > 0 ? range.first - 1 : null;
    afterIndex = range.last + 1 < size ? range.last + 1 : null;
  } else {
    // No receipt of the period: the two leaves around the empty gap (the last issued before
    // `since`, and the one after it).
    beforeIndex = since === null || size === 0 ? null : tlogLastIndexBefore(readable, tenant, size, since);
    const next = beforeIndex === null ? 0 : beforeIndex + 1;
    afterIndex = next < size ? next : null;
  }
  const inclusion = (index: number): string[] => tlogInclusionProof(sha256, index, size, node).map(hexEncode);
  const boundary = (index: number | null): JsonObject | null => {
    if (index === null) return null;
    const [leaf] = listTlogLeaves(readable, tenant, index, index + 1);
    if (leaf === undefined) throw new Error(`Leaf ${index} of the log of ${tenant} is missing.`);
    return { index, receipt: documentOf(readable, leaf.receipt), inclusion: inclusion(index) };
  };
  // The period's leaves, a block at a time: only their receipts' rows are kept.
  const receipts: number[] = [];
  let leavesBytes = 2; // "[]"
  if (range !== null) {
    leavesBytes = 2 + 4; // "[\n" ... "\n  ]"
    for (let from = range.first; from <= range.last; from += BLOCK_LEAVES) {
      const to = Math.min(range.last, from + BLOCK_LEAVES - 1) + 1;
      for (const receipt of listTlogReceiptRows(readable, tenant, from, to)) receipts.push(receipt);
    }
    for (let index = range.first; index <= range.last; index += 1)
      leavesBytes += leafTextLength(index, inclusionProofLength(index, size));
    leavesBytes += 2 * (receipts.length - 1); // ",\n" between leaves
    if (receipts.length !== range.last - range.first + 1)
      throw new Error(`The log of ${tenant} is missing leaves between ${range.first} and ${range.last}.`);
  }

  const consistency: JsonObject[] = [];
  for (const from of request.consistentWith ?? []) {
    if (from > size) throw new LogEvidenceError(`Size ${from} is beyond the checkpoint's size ${size}.`);
    const earlier = getTlogCheckpoint(readable, tenant, from);
    if (earlier === undefined || from < 1)
      throw new LogEvidenceError(`The log of tenant ${tenant} signed no checkpoint at size ${from}.`);
    consistency.push({
      from_size: from,
      from_root: hexEncode(earlier.root),
      proof: tlogConsistencyProof(sha256, from, size, node).map(hexEncode),
    });
  }

  const proofs: JsonObject = {
    format: LOG_EVIDENCE_FORMAT,
    origin,
    key_name: keyName,
    tree_size: size,
    root: hexEncode(checkpoint.root),
    period: { since: request.since, until: request.until },
    first_index: range === null ? null : range.first,
    last_index: range === null ? null : range.last,
    leaves: [],
    before: boundary(beforeIndex),
    after: boundary(afterIndex),
    ...(consistency.length === 0 ? {} : { consistency }),
  };
  // Everything but the leaves, as JSON.stringify lays it out; the leaves go where "[]" is.
  const skeleton = `${JSON.stringify(proofs, null, 2)}\n`;
  const at = skeleton.indexOf(LEAVES_MARK);
  if (at < 0) throw new Error('proofs.json has no leaves member');
  const head = skeleton.slice(0, at + LEAVES_MARK.length - 2);
  const tail = skeleton.slice(at + LEAVES_MARK.length);
  const total = Buffer.byteLength(head) + leavesBytes + Buffer.byteLength(tail);
  let made = false;
  return {
    checkpoint: served,
    proofs: () => {
      if (made) throw new Error('proofs.json is made once');
      made = true;
      const out = Buffer.allocUnsafe(total);
      let offset = out.write(head, 0, 'utf8');
      if (range === null) {
        offset += out.write('[]', offset, 'latin1');
      } else {
        offset += out.write('[\n', offset, 'latin1');
        let shas: string[] = [];
        let blockStart = 0;
        let blockEnd = -1;
        forEachInclusionProof(
          sha256,
          size,
          range.first,
          range.last,
          (level, from, to) => readTlogNodes(readable, tenant, level, from, to),
          node,
          (index, proof) => {
            if (index > blockEnd) {
              blockStart = index;
              blockEnd = Math.min(range.last, index + BLOCK_LEAVES - 1);
              shas = [];
              for (const leaf of listTlogReceiptSha256(readable, tenant, index, blockEnd + 1))
                shas[leaf.leaf_index - blockStart] = leaf.receipt_sha256;
            }
            const receiptSha256 = shas[index - blockStart];
            if (receiptSha256 === undefined) throw new Error(`Leaf ${index} of the log of ${tenant} is missing.`);
            if (index > range.first) offset += out.write(',\n', offset, 'latin1');
            offset += out.write(leafText(index, receiptSha256, proof), offset, 'latin1');
          },
        );
        offset += out.write('\n  ]', offset, 'latin1');
      }
      offset += out.write(tail, offset, 'utf8');
      if (offset !== total) throw new Error(`proofs.json came to ${offset} bytes, not the ${total} reckoned`);
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    },
    proofs_bytes: total,
    receipts,
    tree_size: size,
  };
}

const LEAVES_MARK = '\n  "leaves": []';
const LEAF_OPEN = '    {\n      "index": ';
const LEAF_SHA = ',\n      "receipt_sha256": "';
const LEAF_INCLUSION = '",\n      "inclusion": [';
const LEAF_HASH = '\n        "';
const LEAF_CLOSE = '\n    }';
const INCLUSION_CLOSE = '\n      ]';

/** A leaf of proofs.json as JSON.stringify(proofs, null, 2) lays it out in the leaves array. */
function leafText(index: number, receiptSha256: string, proof: readonly string[]): string {
  let text = `${LEAF_OPEN}${index}${LEAF_SHA}${receiptSha256}${LEAF_INCLUSION}`;
  if (proof.length === 0) return `${text}]${LEAF_CLOSE}`;
  for (let position = 0; position < proof.length; position += 1)
    text += `${position === 0 ? '' : ','}${LEAF_HASH}${proof[position] as string}"`;
  return `${text}${INCLUSION_CLOSE}${LEAF_CLOSE}`;
}

/** {@link leafText}'s length: receipt_sha256 is 64 hex digits (the ledger checks it), a hash 64. */
function leafTextLength(index: number, proofLength: number): number {
  const fixed = LEAF_OPEN.length + String(index).length + LEAF_SHA.length + 64 + LEAF_INCLUSION.length;
  const inclusion =
    proofLength === 0 ? 1 : proofLength * (LEAF_HASH.length + 64 + 1) + (proofLength - 1) + INCLUSION_CLOSE.length;
  return fixed + inclusion + LEAF_CLOSE.length;
}
