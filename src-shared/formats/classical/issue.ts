/**
 * Issuing a classical receipt from caller fields (`evroom sign classical`).
 */
import { skp } from '../../json';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { signClassical } from './sign';

/**
 * Sign the caller's object as a classical receipt's signed_payload, number spellings as written.
 *
 * @param input - The fields (the signed_payload object) and the issuer's key.
 * @returns The receipt and the key that verifies it.
 * @throws IssueInputError (`not_an_object`) when the fields are not an object.
 */
export function issueClassical(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const { tree } = input.fields;
  if (tree.type !== 'object')
    throw new IssueInputError('not_an_object', '', 'the signed_payload must be a JSON object');
  // SKP of the tree is the payload with its number lexemes, the text signClassical signs.
  const text = signClassical(skp(tree), key.seed, input.crypto);
  return { text: formatJsonDocument(text), keys: [publicEntry(key, keyId)], secrets: [] };
}

/** `evroom sign classical`. */
export const classicalIssuer: FormatIssuer = {
  name: 'classical',
  help: ['the signed_payload object; number spellings are kept (1.50 stays 1.50)'],
  keyAlgorithm: 'Ed25519',
  keyId: false,
  roles: [],
  secret: false,
  issuedAt: false,
  exactNumbers: false,
  wraps: false,
  issue: issueClassical,
};
