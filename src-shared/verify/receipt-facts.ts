/**
 * One document verified, with the facts the ledger files it under, from one strict parse.
 *
 * The import's verification workers (src-main/core/receipt-facts.ts) and the browser reference
 * verifier's bundle check both call this, so a receipt's report, its own id and its canonical
 * form (whose SHA-256 is its identity, and with the id one of the two names its file may have)
 * are the same in both. Hashing is left to the caller: the workers hash the text natively.
 */
import { JsonParseError, jcsTree, parseJsonBytes } from '../json';
import type { JsonNode } from '../json/types';
import type { VerifyContext } from './context';
import { detectModule } from './detect';
import { NO_FACTS } from './document-facts';
import type { DocumentFacts } from './format-module';
import type { Report } from './report';
import { singleErrorReport } from './report-builder';
import { verifyParsed } from './verify';

/** A verified document and its facts. */
export interface VerifiedDocument {
  report: Report;
  /**
   * The document's JCS text: its identity is the SHA-256 of this text in UTF-8. Undefined when
   * the bytes do not parse strictly; the identity is then the SHA-256 of the bytes themselves.
   */
  canonical: string | undefined;
  /** The document's own id (`receipt.id`, `receipt_id` or `contract_id`), when it has one. */
  receipt_id: string | null;
  /** When the document says it was issued, in ms since the epoch, when it says so. */
  issued_at: number | null;
  /** The key the document says signed it, else the key its verification resolved. */
  issuer_key_id: string | null;
}

/**
 * Verify one document and read its facts.
 *
 * Never throws because of the document: bytes that do not parse give a MALFORMED report.
 *
 * @param bytes - The document exactly as stored.
 * @param ctx - The verification context.
 * @returns The report, the canonical text and the facts.
 * @throws TypeError if `bytes` is not a Uint8Array.
 */
export function verifyDocumentFacts(bytes: Uint8Array, ctx: VerifyContext): VerifiedDocument {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('verifyDocumentFacts expects a Uint8Array');
  let tree: JsonNode;
  try {
    tree = parseJsonBytes(bytes);
  } catch (error) {
    const reason =
      error instanceof JsonParseError
        ? {
            code: error.code,
            path: error.path,
            message: `The input is not strict JSON: ${error.message} (at offset ${error.offset}).`,
          }
        : { code: 'internal', path: '', message: `The document could not be read: ${(error as Error).message}` };
    return {
      report: singleErrorReport('unknown', 'MALFORMED', 'parse', reason),
      canonical: undefined,
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    };
  }
  const canonical = jcsTree(tree);
  const report = verifyParsed(tree, ctx, { canonical });
  const facts = readDocumentFacts(tree);
  return {
    report,
    canonical,
    receipt_id: facts.receipt_id,
    issued_at: facts.issued_at,
    issuer_key_id: facts.issuer_key_id ?? report.trust.key_id ?? null,
  };
}

/**
 * The facts the ledger files a parsed document under (its id, issuing instant, issuer key id),
 * as its format's module reads them; a document of no known format says nothing.
 *
 * The one derivation of a receipt's `issued_at`: the import stores it, and a bundle's log
 * evidence compares its boundary receipts' instants with the period by it
 * (src-shared/evidence/log-evidence.ts).
 *
 * @param tree - The document, strictly parsed.
 * @returns Its facts.
 */
export function readDocumentFacts(tree: JsonNode): DocumentFacts {
  return detectModule(tree)?.module.facts(tree) ?? NO_FACTS;
}
