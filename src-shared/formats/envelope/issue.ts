/**
 * Issuing an svc-receipt-v1 envelope from caller fields (`evroom sign envelope`).
 */
import type { KeyEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { defineMember, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { signEnvelope, type EnvelopeSigner } from './sign';
import { ENVELOPE_VERSION, type EnvelopeRole } from './verify';

/**
 * Sign the caller's envelope fields: the issuer's key as the service, and the requester's and
 * operator's keys when given (a role left unsigned verifies as INDETERMINATE).
 *
 * @param input - The fields without `signatures` (`v` is added if missing) and the keys.
 * @returns The envelope and the keys that verify it.
 * @throws IssueInputError (`signatures_given`, `wrong_version`, `issued_at_twice`).
 */
export function issueEnvelope(input: IssueInput): IssuedDocument {
  const { key, keyId } = issuerKey(input);
  const fields = fieldsObject(input);
  if (Object.hasOwn(fields, 'signatures')) {
    throw new IssueInputError('signatures_given', '/signatures', 'leave "signatures" out; signing writes it');
  }
  const envelope: JsonObject = {};
  if (!Object.hasOwn(fields, 'v')) envelope['v'] = ENVELOPE_VERSION;
  for (const [name, value] of Object.entries(fields)) defineMember(envelope, name, value);
  if (envelope['v'] !== ENVELOPE_VERSION)
    throw new IssueInputError('wrong_version', '/v', `"v" must be "${ENVELOPE_VERSION}"`);
  if (input.issuedAt !== undefined) {
    if (Object.hasOwn(fields, 'issued_at')) {
      throw new IssueInputError(
        'issued_at_twice',
        '/issued_at',
        'give issued_at once: in the fields or as the issuing instant',
      );
    }
    envelope['issued_at'] = input.issuedAt;
  }
  const signers: Partial<Record<EnvelopeRole, EnvelopeSigner>> = { service: { key_id: keyId, seed: key.seed } };
  const keys: KeyEntry[] = [publicEntry(key, keyId)];
  for (const role of ['requester', 'operator'] as const) {
    const roleKey = input.roles[role];
    if (roleKey === undefined) continue;
    signers[role] = { key_id: roleKey.key_id, seed: roleKey.seed };
    keys.push(publicEntry(roleKey));
  }
  return { text: formatJsonDocument(signEnvelope(envelope, signers, input.crypto)), keys, secrets: [] };
}

/** `evroom sign envelope`. */
export const envelopeIssuer: FormatIssuer = {
  name: 'envelope',
  help: [
    'svc-receipt-v1 fields without "signatures" ("v" is added if missing);',
    '--key signs as service, --requester-key and --operator-key as those roles',
  ],
  keyAlgorithm: 'Ed25519',
  keyId: true,
  roles: [
    { name: 'requester', help: "envelope: the requester's private key file" },
    { name: 'operator', help: "envelope: the operator's private key file" },
  ],
  secret: false,
  issuedAt: true,
  exactNumbers: true,
  wraps: false,
  issue: issueEnvelope,
};
