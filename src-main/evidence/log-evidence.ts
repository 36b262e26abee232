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
  tlogLastIndexBefore,
  tlogNodeSource,
  tlogPeriodIndices,
  type ReadableDB,
} from '../ledger/index';

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
  proofs: string;
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
  const leaves = range === null ? [] : listTlogLeaves(readable, tenant, range.first, range.last + 1);

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
    leaves: leaves.map((leaf) => ({
      index: leaf.leaf_index,
      receipt_sha256: leaf.receipt_sha256,
      inclusion: inclusion(leaf.leaf_index),
    })),
    before: boundary(beforeIndex),
    after: boundary(afterIndex),
    ...(consistency.length === 0 ? {} : { consistency }),
  };
  return {
    checkpoint: served,
    proofs: `${JSON.stringify(proofs, null, 2)}\n`,
    receipts: leaves.map((leaf) => leaf.receipt),
    tree_size: size,
  };
}
