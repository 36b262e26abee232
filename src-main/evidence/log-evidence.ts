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
import { tlogConsistencyProof, tlogInclusionProof, type TlogNodeSource } from '../../src-shared/crypto/tlog';
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
import type { EvidenceReader } from '../ledger/store/evidence';
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
  if (range !== null) {
    for (let from = range.first; from <= range.last; from += BLOCK_LEAVES) {
      const to = Math.min(range.last, from + BLOCK_LEAVES - 1) + 1;
      for (const receipt of listTlogReceiptRows(readable, tenant, from, to)) receipts.push(receipt);
    }
    if (receipts.length !== range.last - range.first + 1)
      throw new Error(`The log of ${tenant} is missing leaves between ${range.first} and ${range.last}.`);
  }
  const leavesBytes = leavesLength(range, size);

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

  const { head, tail, total } = proofsLayout(
    proofsSkeleton({
      request,
      origin,
      keyName,
      size,
      root: checkpoint.root,
      range,
      consistency,
      before: boundary(beforeIndex),
      after: boundary(afterIndex),
    }),
    leavesBytes,
  );
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

/** The leaves array's length in proofs.json ("[]" when the period holds no leaf). */
function leavesLength(range: { first: number; last: number } | null, size: number): number {
  if (range === null) return 2; // "[]"
  let length = 2 + 4; // "[\n" ... "\n  ]"
  for (let index = range.first; index <= range.last; index += 1)
    length += leafTextLength(index, inclusionProofLength(index, size));
  return length + 2 * (range.last - range.first); // ",\n" between leaves
}

/** proofs.json without its leaves (they go where "[]" is). */
function proofsSkeleton(input: {
  request: LogEvidenceRequest;
  origin: string;
  keyName: string;
  size: number;
  root: Uint8Array;
  range: { first: number; last: number } | null;
  consistency: JsonObject[];
  before?: JsonObject | null;
  after?: JsonObject | null;
}): JsonObject {
  return {
    format: LOG_EVIDENCE_FORMAT,
    origin: input.origin,
    key_name: input.keyName,
    tree_size: input.size,
    root: hexEncode(input.root),
    period: { since: input.request.since, until: input.request.until },
    first_index: input.range === null ? null : input.range.first,
    last_index: input.range === null ? null : input.range.last,
    leaves: [],
    before: input.before ?? null,
    after: input.after ?? null,
    ...(input.consistency.length === 0 ? {} : { consistency: input.consistency }),
  };
}

/** proofs.json's text before and after its leaves, and its whole length in bytes. */
function proofsLayout(proofs: JsonObject, leavesBytes: number): { head: string; tail: string; total: number } {
  // Everything but the leaves, as JSON.stringify lays it out; the leaves go where "[]" is.
  const skeleton = `${JSON.stringify(proofs, null, 2)}\n`;
  const at = skeleton.indexOf(LEAVES_MARK);
  if (at < 0) throw new Error('proofs.json has no leaves member');
  const head = skeleton.slice(0, at + LEAVES_MARK.length - 2);
  const tail = skeleton.slice(at + LEAVES_MARK.length);
  return { head, tail, total: Buffer.byteLength(head) + leavesBytes + Buffer.byteLength(tail) };
}

/** A node a synchronous proof asked for that the snapshot's reads have not brought yet. */
class NodeMiss extends Error {
  constructor(
    readonly level: number,
    readonly from: number,
    readonly to: number,
  ) {
    super(`node (${level}, ${from}) not read yet`);
    this.name = 'NodeMiss';
  }
}

/**
 * The log's nodes read through an {@link EvidenceReader}, for the synchronous proof makers: the
 * nodes read so far answer at once; any other throws a {@link NodeMiss}, and {@link NodeCache.run}
 * reads it and runs the maker again.
 */
class NodeCache {
  private readonly levels = new Map<number, Map<number, Uint8Array>>();
  constructor(
    private readonly reader: EvidenceReader,
    private readonly tenant: string,
  ) {}

  /** Brings the complete nodes [from, to) of a level (those the log has). */
  async fetch(level: number, from: number, to: number): Promise<void> {
    if (from >= to) return;
    let own = this.levels.get(level);
    if (own === undefined) {
      own = new Map();
      this.levels.set(level, own);
    }
    for (const row of await this.reader.nodes(level, from, to)) own.set(row.index, row.hash);
  }

  /** Forgets every node but those of the tree's right edge (kept for each block). */
  keepOnly(kept: readonly (readonly [number, number])[]): void {
    const keep = new Map<number, Map<number, Uint8Array>>();
    for (const [level, index] of kept) {
      const hash = this.levels.get(level)?.get(index);
      if (hash === undefined) continue;
      const own = keep.get(level) ?? new Map<number, Uint8Array>();
      own.set(index, hash);
      keep.set(level, own);
    }
    this.levels.clear();
    for (const [level, own] of keep) this.levels.set(level, own);
  }

  readonly node: TlogNodeSource = (level, index) => {
    const hash = this.levels.get(level)?.get(index);
    if (hash === undefined) throw new NodeMiss(level, index, index + 1);
    return hash;
  };

  /** The nodes [from, to) of a level, all of which must have been brought. */
  range(level: number, from: number, to: number, fetched: ReadonlyMap<number, readonly [number, number]>) {
    const window = fetched.get(level);
    if (window === undefined || from < window[0] || to > window[1]) throw new NodeMiss(level, from, to);
    const own = this.levels.get(level);
    const out: { index: number; hash: Uint8Array }[] = [];
    for (let index = from; index < to; index += 1) {
      const hash = own?.get(index);
      if (hash !== undefined) out.push({ index, hash });
    }
    return out;
  }

  /** Runs `make` until no node is missing (each miss read once); a node the log lacks throws. */
  async run<T>(make: () => T): Promise<T> {
    for (;;) {
      try {
        return make();
      } catch (error) {
        if (!(error instanceof NodeMiss)) throw error;
        // A range is read before the maker runs; only single nodes are read on demand.
        if (error.to - error.from > 1)
          throw new Error(`nodes (${error.level}, ${error.from}..${error.to}) were not read`);
        await this.fetch(error.level, error.from, error.to);
        if (this.levels.get(error.level)?.get(error.from) === undefined)
          throw new RangeError(`the log of ${this.tenant} has no node (${error.level}, ${error.from})`);
      }
    }
  }
}

/** The peaks of a tree of `size`: the complete nodes its right-edge ranges hash from. */
function peaks(size: number): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  for (let level = 52; level >= 0; level -= 1) {
    const width = 2 ** level;
    if (size - at >= width) {
      out.push([level, at / width]);
      at += width;
    }
  }
  return out;
}

/** A served tenant's log evidence read through the store's snapshot (any engine). */
export interface SnapshotLogEvidence {
  /** log/checkpoint.txt: the checkpoint as served, with its cosignature lines. */
  checkpoint: string;
  /**
   * Makes proofs.json's bytes (the same text {@link readLogEvidence} makes), reading the snapshot
   * again: call it while the snapshot is open, once.
   */
  proofs: () => Promise<Uint8Array>;
  /** proofs.json's length in bytes, known before it is made. */
  proofs_bytes: number;
  /** The leaves the bundle carries the receipts of (first_index..last_index); null: none. */
  range: { first: number; last: number } | null;
  tree_size: number;
}

/**
 * {@link readLogEvidence} through a store's snapshot (src-main/ledger/store/evidence.ts): the
 * same checkpoint, leaves, boundaries and proofs, byte for byte, from SQLite or PostgreSQL.
 *
 * @param reader - The snapshot of the tenant's evidence.
 * @param sha256 - SHA-256.
 * @param request - Tenant, period, earlier sizes.
 * @throws LogEvidenceError as readLogEvidence
 */
export async function readSnapshotLogEvidence(
  reader: EvidenceReader,
  sha256: HashFunction,
  request: LogEvidenceRequest,
): Promise<SnapshotLogEvidence> {
  const tenant = request.tenantId;
  const checkpoint = await reader.checkpoint();
  if (checkpoint === undefined) throw new LogEvidenceError(`The log of tenant ${tenant} has no signed checkpoint.`);
  const size = checkpoint.tree_size;
  const note = parseNote(checkpoint.note);
  const origin = parseCheckpoint(note.text).origin;
  const keyName = note.signatures[0]?.name;
  if (keyName === undefined) throw new Error('The stored checkpoint carries no signature.');
  const cosignatures = await reader.cosignatures(size);
  const served = checkpoint.note + cosignatures.map((entry) => `${entry.line}\n`).join('');
  const since = request.since === null ? null : timestampToMillis(request.since);
  const until = request.until === null ? null : timestampToMillis(request.until);
  const nodes = new NodeCache(reader, tenant);
  const edge = peaks(size);
  for (const [level, index] of edge) await nodes.fetch(level, index, index + 1);

  const range = size === 0 ? null : await reader.periodIndices(size, { since, until });
  let beforeIndex: number | null;
  let afterIndex: number | null;
  if (range !== null) {
    beforeIndex = range.first > 0 ? range.first - 1 : null;
    afterIndex = range.last + 1 < size ? range.last + 1 : null;
  } else {
    beforeIndex = since === null || size === 0 ? null : await reader.lastIndexBefore(size, since);
    const next = beforeIndex === null ? 0 : beforeIndex + 1;
    afterIndex = next < size ? next : null;
  }
  const boundary = async (index: number | null): Promise<JsonObject | null> => {
    if (index === null) return null;
    const [leaf] = await reader.leafReceipts(index, index + 1);
    if (leaf === undefined) throw new Error(`Leaf ${index} of the log of ${tenant} is missing.`);
    const proof = await nodes.run(() => tlogInclusionProof(sha256, index, size, nodes.node));
    return { index, receipt: JSON.parse(utf8Decode(leaf.raw)) as JsonValue, inclusion: proof.map(hexEncode) };
  };

  const consistency: JsonObject[] = [];
  for (const from of request.consistentWith ?? []) {
    if (from > size) throw new LogEvidenceError(`Size ${from} is beyond the checkpoint's size ${size}.`);
    const earlier = from < 1 ? undefined : await reader.checkpointAt(from);
    if (earlier === undefined || from < 1)
      throw new LogEvidenceError(`The log of tenant ${tenant} signed no checkpoint at size ${from}.`);
    const proof = await nodes.run(() => tlogConsistencyProof(sha256, from, size, nodes.node));
    consistency.push({ from_size: from, from_root: hexEncode(earlier.root), proof: proof.map(hexEncode) });
  }
  const before = await boundary(beforeIndex);
  const after = await boundary(afterIndex);
  const { head, tail, total } = proofsLayout(
    proofsSkeleton({ request, origin, keyName, size, root: checkpoint.root, range, consistency, before, after }),
    leavesLength(range, size),
  );
  let made = false;
  return {
    checkpoint: served,
    proofs: async () => {
      if (made) throw new Error('proofs.json is made once');
      made = true;
      const out = Buffer.allocUnsafe(total);
      let offset = out.write(head, 0, 'utf8');
      if (range === null) {
        offset += out.write('[]', offset, 'latin1');
      } else {
        offset += out.write('[\n', offset, 'latin1');
        for (
          let blockStart = range.first - (range.first % BLOCK_LEAVES);
          blockStart <= range.last;
          blockStart += BLOCK_LEAVES
        ) {
          const from = Math.max(range.first, blockStart);
          const to = Math.min(range.last, blockStart + BLOCK_LEAVES - 1);
          // The nodes forEachInclusionProof reads for this block, in one range read a level.
          nodes.keepOnly(edge);
          const fetched = new Map<number, readonly [number, number]>();
          for (let level = 0, width = 1; width <= size; level += 1, width *= 2) {
            const count = Math.floor(size / width);
            const low = Math.max(0, Math.floor(from / width) - 1);
            const high = Math.min(count, Math.floor(to / width) + 2);
            if (low < high) await nodes.fetch(level, low, high);
            fetched.set(level, [low, Math.max(low, high)]);
          }
          const shas: string[] = [];
          for (const leaf of await reader.leafHashes(from, to + 1)) shas[leaf.leaf_index - from] = leaf.receipt_sha256;
          const mark = offset;
          offset = await nodes.run(() => {
            let at = mark;
            forEachInclusionProof(
              sha256,
              size,
              from,
              to,
              (level, low, high) => nodes.range(level, low, high, fetched),
              nodes.node,
              (index, proof) => {
                const receiptSha256 = shas[index - from];
                if (receiptSha256 === undefined) throw new Error(`Leaf ${index} of the log of ${tenant} is missing.`);
                if (index > range.first) at += out.write(',\n', at, 'latin1');
                at += out.write(leafText(index, receiptSha256, proof), at, 'latin1');
              },
            );
            return at;
          });
        }
        offset += out.write('\n  ]', offset, 'latin1');
      }
      offset += out.write(tail, offset, 'utf8');
      if (offset !== total) throw new Error(`proofs.json came to ${offset} bytes, not the ${total} reckoned`);
      return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    },
    proofs_bytes: total,
    range,
    tree_size: size,
  };
}
