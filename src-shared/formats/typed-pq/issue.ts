/**
 * Issuing a typed-pq envelope from caller fields (`evroom sign typed-pq`).
 */
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { checkMembers, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { signTypedPq } from './sign';

/**
 * Sign the caller's fragments with an ML-DSA-65 key, its public key embedded.
 *
 * @param input - The fields `{fragments: [...]}` and the ML-DSA-65 key (its seed).
 * @returns The envelope and the key that verifies it.
 * @throws IssueInputError (`unknown_member`, `missing_member`, `not_an_array`).
 */
export function issueTypedPq(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = fieldsObject(input);
  checkMembers(fields, ['fragments'], [], input.name);
  const fragments = fields['fragments'];
  if (!Array.isArray(fragments))
    throw new IssueInputError('not_an_array', '/fragments', 'must be an array of JSON values');
  // The key file holds the key generation seed; the secret key is expanded for this one use.
  const secretKey = input.crypto.mldsa65KeyGen(key.seed).secretKey;
  try {
    const document = signTypedPq(fragments, secretKey, key.public_key, keyId, input.crypto);
    return { text: formatJsonDocument(document), keys: [publicEntry(key, keyId)], secrets: [] };
  } finally {
    secretKey.fill(0);
  }
}

/** `evroom sign typed-pq`. */
export const typedPqIssuer: FormatIssuer = {
  name: 'typed-pq',
  help: ['{fragments: [...]}; the key must be ML-DSA-65 (the public key is embedded)'],
  keyAlgorithm: 'ML-DSA-65',
  keyId: true,
  roles: [],
  secret: false,
  issuedAt: false,
  exactNumbers: true,
  wraps: false,
  issue: issueTypedPq,
};
