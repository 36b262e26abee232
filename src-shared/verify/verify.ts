/**
 * The verification entry point: any document in, one Report out (PROTOCOL section 1).
 *
 * Steps: strict parse (a failure is MALFORMED with the parser's code and JSON Pointer, format
 * `unknown`), detection through the format registry, then the format's verifier.
 *
 * Decisions:
 * - A document no format recognizes is MALFORMED with error `unknown_format`: it is well-formed
 *   JSON but fits no schema we know, and a schema failure is MALFORMED. (UNSUPPORTED is kept for
 *   algorithms and suites we recognize but do not execute.)
 * - These functions never throw because of the document. An unexpected exception inside a
 *   verifier becomes status INDETERMINATE with error `internal`: the verifier could not reach a
 *   verdict, which is never a success. A bad context (no provider, an invalid clock) is a
 *   programming error and throws TypeError.
 * - Sealed documents verify their plaintext in turn; at most {@link MAX_SEALED_DEPTH} sealed
 *   layers are opened, deeper nesting is MALFORMED (`nesting_too_deep`).
 */
import { JsonParseError, jcsTree, parseJsonBytes, parseJsonTree, toPlain } from '../json';
import type { JsonNode, JsonValue } from '../json/types';
import type { VerifyContext } from './context';
import { detectModule, knownFormatNames } from './detect';
import type { FormatInput } from './format-module';
import { attributedTrust, UNATTRIBUTED_STATUSES, type Report, type ReportFormat } from './report';
import { singleErrorReport } from './report-builder';

/** The most sealed layers opened around one document; each layer is a decryption and a parse. */
export const MAX_SEALED_DEPTH = 4;

/** Options for {@link verifyParsed}. */
export interface VerifyParsedOptions {
  /** How many sealed layers enclose this document (0 for a top-level document). */
  depth?: number;
  /** `jcsTree(tree)`, when the caller has already computed it; otherwise computed if needed. */
  canonical?: string;
}

/**
 * Verify one document given as text or bytes.
 *
 * Bytes must be UTF-8 (invalid UTF-8 and a BOM are MALFORMED). Any input gives a report.
 *
 * @param input - The document's JSON text or its bytes.
 * @param ctx - Crypto provider, pinned and advertised keys, secrets and the clock.
 * @returns The report.
 * @throws TypeError if `input` is neither a string nor a Uint8Array, or `ctx` is not a context.
 * @example verifyDocument(text, createVerifyContext(createPortableProvider())).status
 */
export function verifyDocument(input: string | Uint8Array, ctx: VerifyContext): Report {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new TypeError('verifyDocument expects the document as a string or a Uint8Array');
  }
  assertContext(ctx);
  return parseAndVerify(input, ctx, 0);
}

/**
 * Verify a document that was already parsed strictly.
 *
 * @param tree - The parsed document (from parseJsonTree or parseJsonBytes).
 * @param ctx - The verification context.
 * @param options - The sealed nesting depth, for nested calls.
 * @returns The report.
 * @throws TypeError if `tree` is not a JSON tree node or `ctx` is not a context.
 */
export function verifyParsed(tree: JsonNode, ctx: VerifyContext, options: VerifyParsedOptions = {}): Report {
  if (typeof tree !== 'object' || tree === null || typeof tree.type !== 'string') {
    throw new TypeError('verifyParsed expects a JSON tree node');
  }
  assertContext(ctx);
  const depth = options.depth ?? 0;
  if (!Number.isSafeInteger(depth) || depth < 0) {
    throw new TypeError('verifyParsed depth must be a non-negative integer');
  }
  if (options.canonical !== undefined && typeof options.canonical !== 'string') {
    throw new TypeError('verifyParsed canonical must be the JCS text of the tree');
  }
  return verifyTree(tree, ctx, depth, options.canonical);
}

function parseAndVerify(input: string | Uint8Array, ctx: VerifyContext, depth: number): Report {
  let tree: JsonNode;
  try {
    tree = typeof input === 'string' ? parseJsonTree(input) : parseJsonBytes(input);
  } catch (error) {
    if (error instanceof JsonParseError) {
      return singleErrorReport('unknown', 'MALFORMED', 'parse', {
        code: error.code,
        path: error.path,
        message: `The input is not strict JSON: ${error.message} (at offset ${error.offset}).`,
      });
    }
    return internalReport('unknown', error);
  }
  return verifyTree(tree, ctx, depth);
}

function verifyTree(tree: JsonNode, ctx: VerifyContext, depth: number, canonical?: string): Report {
  let format: ReportFormat = 'unknown';
  try {
    const detection = detectModule(tree);
    if (detection === undefined) {
      return singleErrorReport('unknown', 'MALFORMED', 'format', {
        code: 'unknown_format',
        path: '',
        message: `The document matches no known format (known: ${knownFormatNames().join(', ')}).`,
      });
    }
    format = detection.format;
    const report = detection.module.verify(new Input(format, tree, ctx, depth, canonical));
    return withAttributedTrust(report, () => detection.module.facts(tree).issuer_key_id);
  } catch (error) {
    return internalReport(format, error);
  }
}

/**
 * The one rule every format's report follows (PROTOCOL section 1): a MISMATCH or INVALID report
 * is never trusted, unpinned, revoked or expired; when the document names or embeds a key it is
 * `unattributed` with that key as `claimed_key_id`. A sealed report's inner report went through
 * here first; the outer report (status raised from the inner one) gets the same answer.
 */
function withAttributedTrust(report: Report, claimed: () => string | null): Report {
  if (!UNATTRIBUTED_STATUSES.includes(report.status)) return report;
  let claimedKeyId: string | null = null;
  try {
    claimedKeyId = report.trust.key_id === undefined ? claimed() : null;
  } catch {
    claimedKeyId = null;
  }
  const trust = attributedTrust(report.status, report.trust, claimedKeyId);
  // Check details already name a key that did not sign without its trust (describeKey's
  // outcome, keys.ts); only the report's trust is judged here.
  return trust === report.trust ? report : { ...report, trust };
}

/**
 * A FormatInput whose methods live on the prototype: no closures made per document. The plain
 * value is made on first use; classical receipts are verified from the tree alone.
 */
class Input implements FormatInput {
  private plain: JsonValue | undefined;
  private plainMade = false;

  constructor(
    readonly format: ReportFormat,
    readonly tree: JsonNode,
    readonly ctx: VerifyContext,
    private readonly depth: number,
    private canonicalText: string | undefined,
  ) {}

  get value(): JsonValue {
    if (!this.plainMade) {
      this.plain = toPlain(this.tree);
      this.plainMade = true;
    }
    return this.plain as JsonValue;
  }

  canonical(): string {
    this.canonicalText ??= jcsTree(this.tree);
    return this.canonicalText;
  }

  verifyNested(bytes: Uint8Array): Report {
    return verifyNested(bytes, this.ctx, this.depth + 1);
  }
}

function verifyNested(bytes: Uint8Array, ctx: VerifyContext, depth: number): Report {
  if (depth > MAX_SEALED_DEPTH) {
    return singleErrorReport('unknown', 'MALFORMED', 'nesting', {
      code: 'nesting_too_deep',
      path: '',
      message: `Sealed documents nest more than ${MAX_SEALED_DEPTH} deep; the innermost layers were not verified.`,
    });
  }
  try {
    return parseAndVerify(bytes, ctx, depth);
  } catch (error) {
    return internalReport('unknown', error);
  }
}

function internalReport(format: ReportFormat, error: unknown): Report {
  // The message only: a stack trace tells a user nothing and may leak paths.
  const reason = error instanceof Error ? error.message : String(error);
  return singleErrorReport(format, 'INDETERMINATE', 'internal', {
    code: 'internal',
    path: '',
    message: `The verifier failed unexpectedly and reached no verdict: ${reason}`,
  });
}

function assertContext(ctx: VerifyContext): void {
  if (typeof ctx !== 'object' || ctx === null) throw new TypeError('A VerifyContext object is required');
  if (typeof ctx.crypto !== 'object' || ctx.crypto === null) {
    throw new TypeError('VerifyContext.crypto must be a CryptoProvider');
  }
  for (const name of ['pinned', 'advertised', 'secrets'] as const) {
    if (!Array.isArray(ctx[name])) throw new TypeError(`VerifyContext.${name} must be an array`);
  }
  if (!(ctx.now instanceof Date) || !Number.isFinite(ctx.now.getTime())) {
    throw new TypeError('VerifyContext.now must be a valid Date');
  }
}
