/**
 * Issuing a typed-pq attestation from caller fields (`evroom sign typed-pq`).
 *
 * The fields follow the typed signer's own sign request: `{fragments: [{text, type, id?}],
 * sign_types?, policy_id?, agg_mode?, hash_suite?, temporal?}`. Unlike the signer, which guesses
 * a type from the text, every fragment names its type; `sign_types` defaults to every type
 * present (everything attested), `agg_mode` to `linear`, `hash_suite` to `sha-256`.
 */
import { isJsonObject, quote } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { checkMembers, fieldsObject, issuerKey, publicEntry, withMldsa65SecretKey } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { type TypedPqFragmentSource, signTypedPq } from './sign';
import {
  MAX_TYPED_PQ_FRAGMENTS,
  TYPED_PQ_AGG_MODES,
  TYPED_PQ_HASH_SUITES,
  type TypedPqAggMode,
  type TypedPqHashSuite,
} from './verify';

const MAX_ID_LENGTH = 256;

function fragmentSources(value: unknown): TypedPqFragmentSource[] {
  if (!Array.isArray(value)) throw new IssueInputError('not_an_array', '/fragments', 'must be an array of fragments');
  if (value.length === 0 || value.length > MAX_TYPED_PQ_FRAGMENTS) {
    throw new IssueInputError('out_of_range', '/fragments', `must hold 1 to ${MAX_TYPED_PQ_FRAGMENTS} fragments`);
  }
  const ids = new Set<string>();
  return value.map((item: unknown, index) => {
    const path = `/fragments/${index}`;
    if (!isJsonObject(item as never)) throw new IssueInputError('not_an_object', path, 'must be {text, type, id?}');
    const fragment = item as Record<string, unknown>;
    for (const member of Object.keys(fragment)) {
      if (!['text', 'type', 'id'].includes(member)) {
        throw new IssueInputError(
          'unknown_member',
          `${path}/${member}`,
          `unknown member ${quote(member)}; a fragment takes text, type, id`,
        );
      }
    }
    const { text, type, id } = fragment;
    if (typeof text !== 'string') throw new IssueInputError('not_a_string', `${path}/text`, 'must be a string');
    if (typeof type !== 'string' || type === '' || type.length > MAX_ID_LENGTH) {
      throw new IssueInputError('not_a_string', `${path}/type`, `must be a string of 1 to ${MAX_ID_LENGTH} characters`);
    }
    const fragmentId = id === undefined ? `f${index + 1}` : id;
    if (typeof fragmentId !== 'string' || fragmentId === '' || fragmentId.length > MAX_ID_LENGTH) {
      throw new IssueInputError('not_a_string', `${path}/id`, `must be a string of 1 to ${MAX_ID_LENGTH} characters`);
    }
    if (ids.has(fragmentId))
      throw new IssueInputError('duplicate_id', `${path}/id`, `fragment id ${quote(fragmentId)} repeats`);
    ids.add(fragmentId);
    return { text, type, id: fragmentId };
  });
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], path: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new IssueInputError('out_of_range', path, `must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * Sign the caller's fragments with an ML-DSA-65 key, its public key inline.
 *
 * @param input - The fields (see the module) and the ML-DSA-65 key (its seed).
 * @returns The attestation and the key that verifies it.
 * @throws IssueInputError (`unknown_member`, `missing_member`, `not_an_array`, `not_an_object`,
 *   `not_a_string`, `out_of_range`, `duplicate_id`).
 */
export function issueTypedPq(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = fieldsObject(input);
  checkMembers(fields, ['fragments'], ['sign_types', 'policy_id', 'agg_mode', 'hash_suite', 'temporal'], input.name);
  const sources = fragmentSources(fields['fragments']);
  const signTypes = fields['sign_types'];
  if (
    signTypes !== undefined &&
    (!Array.isArray(signTypes) ||
      signTypes.some((type) => typeof type !== 'string' || type === '' || type.length > MAX_ID_LENGTH))
  ) {
    throw new IssueInputError('not_an_array', '/sign_types', 'must be an array of fragment type names');
  }
  const policyId = fields['policy_id'];
  if (policyId !== undefined && (typeof policyId !== 'string' || policyId.length > MAX_ID_LENGTH)) {
    throw new IssueInputError('not_a_string', '/policy_id', `must be a string of at most ${MAX_ID_LENGTH} characters`);
  }
  const temporal = fields['temporal'];
  if (temporal !== undefined && !isJsonObject(temporal)) {
    throw new IssueInputError('not_an_object', '/temporal', 'must be an object');
  }
  const document = withMldsa65SecretKey(input, key, (secretKey) =>
    signTypedPq(sources, secretKey, key.public_key, input.crypto, {
      ...(signTypes === undefined ? {} : { signTypes: signTypes as string[] }),
      ...(policyId === undefined ? {} : { policyId }),
      aggMode: oneOf<TypedPqAggMode>(fields['agg_mode'], TYPED_PQ_AGG_MODES, '/agg_mode') ?? 'linear',
      hashSuite: oneOf<TypedPqHashSuite>(fields['hash_suite'], TYPED_PQ_HASH_SUITES, '/hash_suite') ?? 'sha-256',
      ...(temporal === undefined ? {} : { temporal }),
      issuedAt: input.issuedAt ?? input.now.toISOString(),
    }),
  );
  return { text: formatJsonDocument(document), keys: [publicEntry(key, keyId)], secrets: [] };
}

/** `evroom sign typed-pq`. */
export const typedPqIssuer: FormatIssuer = {
  name: 'typed-pq',
  help: [
    '{fragments: [{text, type, id?}], sign_types?, policy_id?, agg_mode?, hash_suite?, temporal?}; the key must be ML-DSA-65 (inline in the attestation)',
    'sign_types: the fragment types attested (default: every type present); agg_mode linear (default) or merkle; hash_suite sha-256 (default) or sha-384',
  ],
  keyAlgorithm: 'ML-DSA-65',
  keyId: false,
  roles: [],
  secret: false,
  issuedAt: true,
  exactNumbers: true,
  wraps: false,
  issue: issueTypedPq,
};
