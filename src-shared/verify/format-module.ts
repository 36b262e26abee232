/**
 * The contract between the verification entry point and each document format.
 *
 * A format folder (src-shared/formats/<name>/) exports one {@link FormatModule}: how to recognize
 * its documents and how to verify one. The entry point (verify.ts) parses, asks each registered
 * module in turn (registry.ts) and hands the document to the first that recognizes it. Adding a
 * format therefore touches its own folder and one line of the registry.
 */
import type { JsonNode, JsonValue } from '../json/types';
import type { VerifyContext } from './context';
import type { Report, ReportFormat } from './report';

/** Everything a format verifier is given. */
export interface FormatInput {
  /** The format {@link FormatModule.detect} answered for this document. */
  format: ReportFormat;
  /** The strictly parsed document, number lexemes kept. */
  tree: JsonNode;
  /** The same document as plain values, made on first use (see {@link FormatModule.detect}). */
  readonly value: JsonValue;
  /**
   * JCS (RFC 8785) of the whole document, computed at most once per verification (the ledger
   * needs it too, for the receipt's identity, and hands it in).
   */
  canonical(): string;
  ctx: VerifyContext;
  /**
   * Verify the bytes of a document found inside this one (a sealed plaintext): strict parse,
   * detection and verification one nesting level deeper. Never throws; past the nesting limit it
   * answers MALFORMED.
   */
  verifyNested(bytes: Uint8Array): Report;
}

/** One document format: recognition and verification. */
export interface FormatModule {
  /** A short name for messages and tables, e.g. `classical`. */
  readonly name: string;
  /**
   * Recognize a document by its shape, cheaply and without validating it.
   *
   * Reads the tree, so that documents whose verifier never needs plain values (classical
   * receipts) are not converted for detection alone.
   *
   * @param node - Any parsed document.
   * @returns The report format when the document is of this kind, else undefined.
   */
  detect(node: JsonNode): ReportFormat | undefined;
  /**
   * Verify a document this module recognized.
   *
   * Should not throw for any document; the entry point still turns an unexpected exception into
   * an `internal` error report.
   */
  verify(input: FormatInput): Report;
}
