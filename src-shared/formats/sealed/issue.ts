/**
 * Sealing a document the caller gives (`evroom sign sealed`).
 */
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { formatJsonDocument } from '../../verify/json-document';
import { sealDocument } from './sign';

/**
 * Encrypt the caller's document, exactly as given, under the chosen secret.
 *
 * The plaintext must be a document a verifier recognizes; its own signatures are checked by
 * whoever opens it, with keys the sealer does not have.
 *
 * @param input - The fields (the document's text) and the secret.
 * @returns The sealed document and the secret that opens it.
 * @throws IssueInputError (`secret_missing`) without a secret; NotADocumentError
 *   (`not_a_document`) when the plaintext is MALFORMED to the verifier.
 */
export function issueSealed(input: IssueInput): IssuedDocument {
  const { secret } = input;
  if (secret === undefined) throw new IssueInputError('secret_missing', '', 'sealed documents need a secret');
  const inner = input.verify(input.fields.text, [], [secret]);
  if (inner.status === 'MALFORMED') {
    const [first] = inner.errors;
    throw new NotADocumentError(
      inner.format,
      first === undefined ? 'no detail' : first.path ? `${first.path}: ${first.message}` : first.message,
    );
  }
  const sealed = sealDocument(input.fields.text, secret, input.crypto);
  return { text: formatJsonDocument(sealed), keys: [], secrets: [secret] };
}

/** The plaintext to seal is not a document the verifier recognizes: what it was taken for, and why. */
export class NotADocumentError extends IssueInputError {
  /** The format the verifier gave the plaintext (`unknown` when it recognized none). */
  readonly format: string;
  /** The verifier's first error, `path: message`. */
  readonly reason: string;

  /**
   * @param format - The plaintext's report format.
   * @param reason - Its first error.
   */
  constructor(format: string, reason: string) {
    super(
      'not_a_document',
      '',
      `The document to seal is not a document evroom verifies (${format}, MALFORMED): ${reason}`,
    );
    this.format = format;
    this.reason = reason;
  }
}

/** `evroom sign sealed`. */
export const sealedIssuer: FormatIssuer = {
  name: 'sealed',
  help: [
    'a signed document to encrypt with AES-256-GCM: --secret FILE (and --key-id',
    'to pick the secret when FILE holds several), no --key',
  ],
  keyId: true,
  roles: [],
  secret: true,
  issuedAt: false,
  exactNumbers: false,
  wraps: true,
  issue: issueSealed,
};
