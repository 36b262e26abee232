/**
 * An evidence bundle's anchors/<batch_id>.json: the anchor records of one batch.
 *
 * PROTOCOL section 9 names the file but not its content; this program reads and writes
 *
 *     {"batch_id": "<YYYY-MM-DDThh:mmZ>",
 *      "anchors": [{"receipt_sha256": <HEX64 or null>, "record": <anchor record>}]}
 *
 * where each record is the anchor record as the service returns it (spec section 2.6, pending
 * or resolved) with its `svc_anchor` URN. `receipt_sha256` ties the record to a receipt of the
 * ledger (the receipt's JCS SHA-256) when known. The record's status is read from its URN by
 * the rules of src-shared/anchor/urn.ts (pending or resolved form; anything else is refused),
 * and a pending URN must name the file's batch.
 */
import { DomainError } from '../../src-shared/api/domain-error';
import { BATCH_ID_PATTERN, isBatchId, parseAnchorUrn } from '../../src-shared/anchor/urn';
import { isHex64 } from '../../src-shared/crypto';
import { JsonParseError, parseJsonBytes, toPlain } from '../../src-shared/json';
import type { JsonNode, JsonValue } from '../../src-shared/json/types';

// Kept as an export of this module for its callers; the rule lives in src-shared/anchor/urn.ts.
export { BATCH_ID_PATTERN };

/** One anchor record of a batch file. */
export interface AnchorFileEntry {
  receipt_sha256: string | null;
  /** The record as the service returned it; has a string `svc_anchor`. */
  record: { [name: string]: JsonValue };
  /** From the URN. */
  status: 'pending' | 'resolved';
  svc_anchor: string;
}

/** A parsed anchors file. */
export interface AnchorsFile {
  batch_id: string;
  anchors: AnchorFileEntry[];
}

/** Why an anchors file cannot be used. */
export class AnchorsFileError extends DomainError {
  override readonly code = 'anchors_file_invalid';
  /** JSON Pointer to the problem. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = 'AnchorsFileError';
    this.path = path;
  }
}

function objectMembers(
  node: JsonNode,
  path: string,
  allowed: readonly string[],
  required: readonly string[],
): Map<string, JsonNode> {
  if (node.type !== 'object') throw new AnchorsFileError(path, `${path || 'The file'} must be an object.`);
  const map = new Map<string, JsonNode>();
  for (const [name, value] of node.members) {
    if (!allowed.includes(name))
      throw new AnchorsFileError(`${path}/${name}`, `Unknown member ${JSON.stringify(name)}.`);
    map.set(name, value);
  }
  for (const name of required) {
    if (!map.has(name)) throw new AnchorsFileError(`${path}/${name}`, `Required member "${name}" is missing.`);
  }
  return map;
}

/**
 * Parse and check an anchors file.
 *
 * @param bytes - The file's bytes.
 * @param expectedBatchId - The batch id its file name gives.
 * @returns The batch and its records.
 * @throws AnchorsFileError naming the first problem.
 */
export function parseAnchorsFile(bytes: Uint8Array, expectedBatchId: string): AnchorsFile {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parseAnchorsFile expects bytes');
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch (error) {
    if (error instanceof JsonParseError) throw new AnchorsFileError(error.path, `Not strict JSON: ${error.message}`);
    throw error;
  }
  const top = objectMembers(tree, '', ['batch_id', 'anchors'], ['batch_id', 'anchors']);
  const batchNode = top.get('batch_id') as JsonNode;
  if (batchNode.type !== 'string' || !isBatchId(batchNode.value)) {
    throw new AnchorsFileError('/batch_id', '"batch_id" must be a batch minute YYYY-MM-DDThh:mmZ.');
  }
  const batchId = batchNode.value;
  if (batchId !== expectedBatchId) {
    throw new AnchorsFileError('/batch_id', `"batch_id" is ${batchId} but the file is named for ${expectedBatchId}.`);
  }
  const list = top.get('anchors') as JsonNode;
  if (list.type !== 'array') throw new AnchorsFileError('/anchors', '"anchors" must be an array.');
  const anchors = list.items.map((item, index): AnchorFileEntry => {
    const path = `/anchors/${index}`;
    const entry = objectMembers(item, path, ['receipt_sha256', 'record'], ['record']);
    const shaNode = entry.get('receipt_sha256');
    let receiptSha256: string | null = null;
    if (shaNode !== undefined && shaNode.type !== 'null') {
      if (shaNode.type !== 'string' || !isHex64(shaNode.value)) {
        throw new AnchorsFileError(
          `${path}/receipt_sha256`,
          '"receipt_sha256" must be 64 lowercase hex characters or null.',
        );
      }
      receiptSha256 = shaNode.value;
    }
    const recordNode = entry.get('record') as JsonNode;
    if (recordNode.type !== 'object') throw new AnchorsFileError(`${path}/record`, '"record" must be an object.');
    const record = toPlain(recordNode) as { [name: string]: JsonValue };
    const urn = record['svc_anchor'];
    const parsed = parseAnchorUrn(urn);
    if (typeof urn !== 'string' || parsed === undefined) {
      throw new AnchorsFileError(
        `${path}/record/svc_anchor`,
        '"svc_anchor" must be an anchor URN: urn:svc:anchor:pending:<batch_id>:<suffix> or ' +
          'urn:svc:anchor:<network>:<block_height>:<tx_hash>:<suffix>.',
      );
    }
    if (parsed.status === 'pending' && parsed.batch_id !== batchId) {
      throw new AnchorsFileError(`${path}/record/svc_anchor`, `The pending URN belongs to batch ${parsed.batch_id}.`);
    }
    if (record['batch_id'] !== undefined && record['batch_id'] !== batchId) {
      throw new AnchorsFileError(
        `${path}/record/batch_id`,
        `The record belongs to batch ${String(record['batch_id'])}.`,
      );
    }
    return { receipt_sha256: receiptSha256, record, status: parsed.status, svc_anchor: urn };
  });
  return { batch_id: batchId, anchors };
}

/**
 * Write an anchors file.
 *
 * @param batchId - The batch.
 * @param anchors - Its records.
 * @returns JSON text with a newline.
 */
export function serializeAnchorsFile(
  batchId: string,
  anchors: readonly { receipt_sha256: string | null; record: unknown }[],
): string {
  if (!isBatchId(batchId)) throw new RangeError('serializeAnchorsFile: not a batch id');
  return `${JSON.stringify({ batch_id: batchId, anchors: anchors.map((anchor) => ({ receipt_sha256: anchor.receipt_sha256, record: anchor.record })) }, null, 2)}\n`;
}
