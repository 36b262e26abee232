/**
 * One document in, its report and the facts the ledger files it under out.
 *
 * This is the unit of work of the verification worker pool, kept apart from the worker's
 * message handling so it can be called (and tested) on any thread. The document is parsed once:
 * the same tree is verified and canonicalised for its identity.
 *
 * Identity (`receipt_sha256`) is the hex SHA-256 of the document's JCS form, as the ledger
 * defines it; for bytes that do not parse strictly it is the SHA-256 of the bytes themselves.
 * It is computed with node:crypto directly (this module runs in Node only), whatever provider
 * the context carries: the digest is the same.
 *
 * The other facts (the document's own id, when it says it was issued, and which key it says
 * signed it) are each format's to say: the detected format module's `facts` reads them from the
 * same tree, and the rules for what is worth recording live in src-shared/verify/document-facts.ts.
 * A document of no known format says nothing. The parse, the report and the facts are
 * src-shared/verify/receipt-facts.ts, which the browser reference verifier's bundle check calls too.
 */
import { createHash, hash } from 'node:crypto';
import type { VerifyContext } from '../../src-shared/verify/context';
import type { Report, SerializedReport } from '../../src-shared/verify/report';
import { verifyDocumentFacts } from '../../src-shared/verify/receipt-facts';
import { reportProblem } from '../../src-shared/evidence/bundle-findings';

export { MAX_RECEIPT_ID_LENGTH } from '../../src-shared/verify/document-facts';

/** A verified document with what the ledger needs to store it. */
export interface ReceiptFacts {
  /** hex SHA-256 of the JCS form (of the raw bytes when they do not parse). */
  receipt_sha256: string;
  /** hex SHA-256(0x00 || the same bytes): its leaf hash in a transparency log (RFC 9162; docs/logs.md). */
  leaf_hash: string;
  report: Report;
  /** The document's own id (`receipt.id`, `receipt_id` or `contract_id`), when it has one. */
  receipt_id: string | null;
  /** When the document says it was issued, in ms since the epoch, when it says so. */
  issued_at: number | null;
  /**
   * The key the document says signed it (its format's issuer key id; an embedded key by its
   * did:key). A document that names none, such as a sealed one whose signer is inside the
   * ciphertext, is filed under the key its verification resolved (`report.trust.key_id`).
   */
  issuer_key_id: string | null;
}

/** RFC 9162's leaf prefix (src-shared/crypto/tlog.ts's tlogLeafHash, natively). */
const LEAF_PREFIX = Uint8Array.of(0x00);

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
  const verified = verifyDocumentFacts(bytes, ctx);
  return {
    // One native call from the text to hex (UTF-8 encoded inside): the same digest as the
    // provider's sha256 of utf8Encode(canonical), without two copies and a hex loop per receipt.
    receipt_sha256: hash('sha256', verified.canonical ?? bytes, 'hex'),
    leaf_hash: createHash('sha256')
      .update(LEAF_PREFIX)
      .update(verified.canonical ?? bytes)
      .digest('hex'),
    report: verified.report,
    receipt_id: verified.receipt_id,
    issued_at: verified.issued_at,
    issuer_key_id: verified.issuer_key_id,
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
  leaf_hash: string;
  receipt_id: string | null;
  issued_at: number | null;
  issuer_key_id: string | null;
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
    leaf_hash: facts.leaf_hash,
    receipt_id: facts.receipt_id,
    issued_at: facts.issued_at,
    issuer_key_id: facts.issuer_key_id,
    report: { json: JSON.stringify(report), format: report.format, status: report.status, trust },
    problem: reportProblem(report),
  };
}
