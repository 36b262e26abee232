/**
 * One document in, its report and the facts the ledger files it under out.
 *
 * This is the unit of work of the verification worker pool, kept apart from the worker's
 * message handling so it can be called (and tested) on any thread. The document is parsed once:
 * the same tree is verified and canonicalised for its identity.
 *
 * Identity (`receipt_sha256`) is the hex SHA-256 of the document's JCS form, as the ledger
 * defines it; for bytes that do not parse strictly it is the SHA-256 of the bytes themselves.
 */
import { hexEncode, utf8Encode } from '../../src-shared/crypto';
import { JsonParseError, jcsTree, parseJsonBytes } from '../../src-shared/json';
import type { JsonNode } from '../../src-shared/json/types';
import type { VerifyContext } from '../../src-shared/verify/context';
import type { Report, SerializedReport } from '../../src-shared/verify/report';
import { singleErrorReport } from '../../src-shared/verify/report-builder';
import { isTimestamp, timestampToMillis } from '../../src-shared/verify/timestamp';
import { verifyParsed } from '../../src-shared/verify/verify';

/** The longest document id kept (the ledger's limit); longer ids are not recorded. */
export const MAX_RECEIPT_ID_LENGTH = 512;

/** A verified document with what the ledger needs to store it. */
export interface ReceiptFacts {
  /** hex SHA-256 of the JCS form (of the raw bytes when they do not parse). */
  receipt_sha256: string;
  report: Report;
  /** The document's own id (`receipt.id`, `receipt_id` or `contract_id`), when it has one. */
  receipt_id: string | null;
  /** When the document says it was issued, in ms since the epoch, when it says so. */
  issued_at: number | null;
}

/**
 * Verify one document and describe it for the ledger.
 *
 * Never throws because of the document: bytes that do not parse give a MALFORMED report (as
 * `verifyDocument` would) and are identified by the SHA-256 of the bytes.
 *
 * @param bytes - The document exactly as stored.
 * @param ctx - The verification context.
 * @returns Identity, report, document id and issue time.
 * @throws TypeError if `bytes` is not a Uint8Array.
 */
export function verifyReceiptBytes(bytes: Uint8Array, ctx: VerifyContext): ReceiptFacts {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyReceiptBytes expects a Uint8Array');
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch (error) {
    const reason =
      error instanceof JsonParseError
        ? { code: error.code, path: error.path, message: `The input is not strict JSON: ${error.message} (at offset ${error.offset}).` }
        : { code: 'internal', path: '', message: `The document could not be read: ${(error as Error).message}` };
    return {
      receipt_sha256: hexEncode(ctx.crypto.sha256(bytes)),
      report: singleErrorReport('unknown', 'MALFORMED', 'parse', reason),
      receipt_id: null,
      issued_at: null,
    };
  }
  const canonical = jcsTree(tree);
  const report = verifyParsed(tree, ctx, { canonical });
  return {
    receipt_sha256: hexEncode(ctx.crypto.sha256(utf8Encode(canonical))),
    report,
    receipt_id: documentId(tree),
    issued_at: issuedAt(tree),
  };
}

/**
 * What a verification worker sends back for one document: the facts with the report as JSON
 * text. Text crosses the thread boundary about three times faster than the report's object
 * tree, the ledger needs the text anyway, and the importing thread, which also stores, is left
 * with one string per receipt instead of some thirty objects.
 */
export interface VerifiedReceipt {
  receipt_sha256: string;
  receipt_id: string | null;
  issued_at: number | null;
  report: SerializedReport;
  /** For a report that is not PASS: its first error message, or its first check not passed. */
  problem: string;
}

/**
 * The compact form of {@link ReceiptFacts} (see {@link VerifiedReceipt}).
 *
 * @param facts - What verifyReceiptBytes answered.
 * @returns The same facts with the report serialized.
 */
export function toVerifiedReceipt(facts: ReceiptFacts): VerifiedReceipt {
  const { report } = facts;
  const trust: SerializedReport['trust'] = { status: report.trust.status };
  if (report.trust.key_id !== undefined) trust.key_id = report.trust.key_id;
  return {
    receipt_sha256: facts.receipt_sha256,
    receipt_id: facts.receipt_id,
    issued_at: facts.issued_at,
    report: { json: JSON.stringify(report), format: report.format, status: report.status, trust },
    problem:
      report.status === 'PASS'
        ? ''
        : (report.errors[0]?.message ?? report.checks.find((check) => check.status !== 'pass')?.detail ?? ''),
  };
}

function member(node: JsonNode | undefined, name: string): JsonNode | undefined {
  if (node === undefined || node.type !== 'object') return undefined;
  for (const [key, value] of node.members) if (key === name) return value;
  return undefined;
}

function stringOf(node: JsonNode | undefined): string | undefined {
  return node !== undefined && node.type === 'string' ? node.value : undefined;
}

/**
 * The document's own id: `receipt.id` (profile receipts), `receipt_id` (wearable, envelope),
 * `contract_id` (typed contracts). Only short printable ids are kept: anything else is not an
 * id a person would look up.
 */
function documentId(tree: JsonNode): string | null {
  const candidate =
    stringOf(member(member(tree, 'receipt'), 'id')) ?? stringOf(member(tree, 'receipt_id')) ?? stringOf(member(tree, 'contract_id'));
  if (candidate === undefined || candidate.length === 0 || candidate.length > MAX_RECEIPT_ID_LENGTH) return null;
  // Printable ASCII only: an id is shown in lists and used in file names of exports.
  return /^[\x21-\x7e]+$/.test(candidate) ? candidate : null;
}

/** Issue instants before 2000 or after 9999 are not plausible and are not recorded. */
const EARLIEST_ISSUE = Date.UTC(2000, 0, 1);
const LATEST_ISSUE = Date.UTC(9999, 11, 31);

function plausible(millis: number): number | null {
  return Number.isSafeInteger(millis) && millis >= EARLIEST_ISSUE && millis <= LATEST_ISSUE ? millis : null;
}

/**
 * When the document says it was issued: `issued_at` (TS, profile and typed; ISO 8601 in the
 * envelope), nano `i` and wearable `ts` (Unix seconds).
 */
function issuedAt(tree: JsonNode): number | null {
  const text = stringOf(member(tree, 'issued_at'));
  if (text !== undefined) {
    if (isTimestamp(text)) return plausible(timestampToMillis(text));
    // The envelope's issued_at is "ISO 8601" without our TS restriction; accept full dates only.
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/.test(text)) {
      return plausible(Math.trunc(Date.parse(text)));
    }
    return null;
  }
  for (const name of ['i', 'ts']) {
    const node = member(tree, name);
    if (node !== undefined && node.type === 'number' && Number.isSafeInteger(node.value)) {
      return plausible(node.value * 1000);
    }
  }
  return null;
}
