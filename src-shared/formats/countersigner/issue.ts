/**
 * Issuing a countersigner record from caller fields (`evroom sign countersigner`).
 */
import { jcs } from '../../json';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { signCountersigner } from './sign';

/**
 * Countersign the JCS text of any JSON value, in a one-entry BLAKE3 log.
 *
 * @param input - The fields (any JSON value) and the countersigner's key.
 * @returns The record and the key that verifies it.
 */
export function issueCountersigner(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const record = signCountersigner(jcs(input.fields.value), key.seed, input.crypto);
  return { text: formatJsonDocument(record), keys: [publicEntry(key, keyId)], secrets: [] };
}

/** `evroom sign countersigner`. */
export const countersignerIssuer: FormatIssuer = {
  name: 'countersigner',
  help: ['any JSON value; its JCS text is countersigned in a one-entry BLAKE3 log'],
  keyAlgorithm: 'Ed25519',
  keyId: false,
  roles: [],
  secret: false,
  issuedAt: false,
  exactNumbers: true,
  wraps: false,
  issue: issueCountersigner,
};
