/**
 * Issuing a typed contract from caller fields (`evroom sign typed`).
 */
import { hexEncode } from '../../crypto';
import { isJsonObject, quote, type JsonObject } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument, IssueKey } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { checkMembers, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { isTypedContractType, TYPED_CONTRACT_TYPES } from './contract-types';
import { buildSigrChain, signTypedContract } from './sign';

/** The caller's members of a typed contract; the signer adds the rest. */
export const TYPED_MEMBERS = {
  required: ['contract_type', 'body'],
  optional: ['contract_id', 'issuer', 'issued_at'],
} as const;

/**
 * Sign the caller's contract. contract_id defaults to the type and 16 random hex digits,
 * issued_at to the issuing instant, issuer to the key id; sigr.chain links given as
 * `{statement_sha256}` are chained and signed with the issuer's key.
 *
 * @param input - The fields and the issuer's key.
 * @returns The contract and the key that verifies it.
 * @throws IssueInputError (`unknown_member`, `missing_member`, `unknown_contract_type`,
 *   `not_an_object`, `issued_at_twice`, `mixed_links`, `unsigned_link_members`).
 */
export function issueTypedContract(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = fieldsObject(input);
  checkMembers(fields, TYPED_MEMBERS.required, TYPED_MEMBERS.optional, input.name);
  const contractType = fields['contract_type'];
  if (!isTypedContractType(contractType)) {
    throw new IssueInputError(
      'unknown_contract_type',
      '/contract_type',
      `must be one of ${TYPED_CONTRACT_TYPES.join(', ')}`,
    );
  }
  const body = fields['body'];
  if (!isJsonObject(body)) throw new IssueInputError('not_an_object', '/body', 'the body must be a JSON object');
  if (input.issuedAt !== undefined && Object.hasOwn(fields, 'issued_at')) {
    throw new IssueInputError(
      'issued_at_twice',
      '/issued_at',
      'give issued_at once: in the fields or as the issuing instant',
    );
  }
  const signedBody = contractType === 'sigr.chain' ? signSigrLinks(body, key, keyId, input) : body;
  const contract = signTypedContract(
    {
      contract_type: contractType,
      contract_id:
        (fields['contract_id'] as string | undefined) ??
        `${contractType.replace('.', '-')}-${hexEncode(input.crypto.randomBytes(8))}`,
      issued_at: (fields['issued_at'] as string | undefined) ?? input.issuedAt ?? input.now.toISOString(),
      issuer: (fields['issuer'] as string | undefined) ?? keyId,
      body: signedBody,
    },
    key.seed,
    keyId,
    input.crypto,
  );
  return { text: formatJsonDocument(contract), keys: [publicEntry(key, keyId)], secrets: [] };
}

/**
 * sigr.chain links given as `{statement_sha256}` are chained and signed with the key; links that
 * already carry `sig_b64u` are kept as given. A mix is refused: a chain cannot be half rebuilt.
 */
function signSigrLinks(body: JsonObject, key: IssueKey, keyId: string, input: IssueInput): JsonObject {
  const links = body['links'];
  if (!Array.isArray(links) || links.length === 0) return body;
  const unsigned = links.filter((link) => isJsonObject(link) && !Object.hasOwn(link, 'sig_b64u'));
  if (unsigned.length === 0) return body;
  if (unsigned.length !== links.length) {
    throw new IssueInputError(
      'mixed_links',
      '/body/links',
      'give every link as {statement_sha256} to have them signed, or every link signed',
    );
  }
  const statements = links.map((link, index) => {
    const object = link as JsonObject;
    const extra = Object.keys(object).find((name) => name !== 'statement_sha256');
    if (extra !== undefined || typeof object['statement_sha256'] !== 'string') {
      throw new IssueInputError(
        'unsigned_link_members',
        `/body/links/${index}`,
        `an unsigned link is {statement_sha256} only${extra ? ` (found ${quote(extra)})` : ''}`,
      );
    }
    return object['statement_sha256'];
  });
  const signed = buildSigrChain(
    statements,
    statements.map(() => ({ key_id: keyId, seed: key.seed })),
    input.crypto,
  );
  return { ...body, links: signed };
}

/** `evroom sign typed`. */
export const typedIssuer: FormatIssuer = {
  name: 'typed',
  help: [
    '{contract_type, body, contract_id?, issuer?, issued_at?}; issuer defaults to',
    'the key id; sigr.chain links given as {statement_sha256} are signed with --key',
  ],
  keyAlgorithm: 'Ed25519',
  keyId: true,
  roles: [],
  secret: false,
  issuedAt: true,
  exactNumbers: true,
  wraps: false,
  issue: issueTypedContract,
};
