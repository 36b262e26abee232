/**
 * Verifying documents, and keeping what was verified in the ledger.
 *
 * A verification never changes anything unless the caller asks to save it: then the document
 * is stored exactly as received, with its report and where it came from.
 */
import type { VerifyContext } from '../../src-shared/verify/context';
import type { Report } from '../../src-shared/verify/report';
import { failpoint } from '../core/failpoints';
import { verifyReceiptBytes, type ReceiptFacts } from '../core/receipt-facts';
import { verifyReportBytes } from '../core/verify-report';
import { insertReceipts, type SourceKind } from '../ledger';
import type { Workspace } from './workspace';

/**
 * Verifies one document.
 *
 * Never throws because of the document: bytes that are not strict JSON give a MALFORMED
 * report.
 *
 * @param bytes - The document exactly as received.
 * @param context - Keys, trust, secrets and the instant (see workspaceVerifyContext).
 * @returns Its report with the facts the ledger files it under.
 */
export function verifyBytes(bytes: Uint8Array, context: VerifyContext): ReceiptFacts {
  failpoint('operations.verify');
  return verifyReceiptBytes(bytes, context);
}

/**
 * The bytes of a document that a door received as text (the app API's `verify`).
 *
 * UTF-8, except that a lone surrogate (text that was never valid Unicode, e.g. decoded from
 * broken UTF-8 by a lenient reader, or built by a script) is written as its three-byte
 * generalized UTF-8 form, which is not UTF-8: the strict parser then reports the document
 * MALFORMED (`invalid_utf8`, PROTOCOL section 1) at that offset. TextEncoder would quietly
 * replace it with U+FFFD and verify other bytes than the ones given.
 *
 * @param text - The document text.
 * @returns Its bytes.
 * @throws TypeError if `text` is not a string.
 */
export function textBytes(text: string): Uint8Array {
  if (typeof text !== 'string') throw new TypeError('textBytes expects a string');
  // Node 20 has String.prototype.isWellFormed; the common case is one native scan.
  if ((text as unknown as { isWellFormed(): boolean }).isWellFormed()) return new TextEncoder().encode(text);
  const encoder = new TextEncoder();
  const out: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out.push(...encoder.encode(text.slice(index, index + 2)));
      index += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out.push(0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f));
    } else {
      out.push(...encoder.encode(text.charAt(index)));
    }
  }
  return Uint8Array.from(out);
}

/**
 * Verifies one document for its report alone (no identity hash: the CLI's `verify` path).
 *
 * An HTML page is taken for an audit report's HTML form (PROTOCOL 12). The work is
 * core/verify-report.ts's, where the verification workers run it too.
 *
 * @param bytes - The document exactly as received.
 * @param context - Keys, trust, secrets and the instant.
 * @returns The report; never throws because of the document.
 */
export function verifyReport(bytes: Uint8Array, context: VerifyContext): Report {
  failpoint('operations.verify');
  return verifyReportBytes(bytes, context);
}

/** Where a saved document came from. */
export interface DocumentSource {
  kind: SourceKind;
  /** A file path, a name the user gave, `samples/...`. */
  ref: string;
}

/**
 * Stores verified documents (with their reports) in the ledger, in one transaction.
 *
 * A document already stored (same JCS SHA-256) is not stored twice; the source is added to it.
 *
 * @returns The row id of each document, and whether this call created it.
 */
export function saveVerified(
  workspace: Workspace,
  documents: readonly { bytes: Uint8Array; facts: ReceiptFacts; source: DocumentSource }[],
): { id: number; created: boolean }[] {
  return workspace.ledger.runInTransaction((database) =>
    insertReceipts(
      database,
      documents.map((document) => ({
        receipt_sha256: document.facts.receipt_sha256,
        raw: document.bytes,
        report: document.facts.report,
        receipt_id: document.facts.receipt_id,
        issued_at: document.facts.issued_at,
        issuer_key_id: document.facts.issuer_key_id,
        source: document.source,
      })),
    ).map((row) => ({ id: row.id, created: row.created })),
  );
}
