/**
 * Issuing profile receipts from caller fields (`evroom sign nano|standard|pq|legacy-standard|
 * legacy-pq`).
 */
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { checkMembers, fieldsObject, issuerKey, publicEntry } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { timestampToMillis } from '../../verify/timestamp';
import { issueLegacyReceipt, issueProfileReceipt, type ProfileFieldsByName } from './sign';
import type { ProfileName } from './verify';

/** The caller's members of each profile (PROTOCOL section 3), required and optional. */
export const PROFILE_MEMBERS: Readonly<
  Record<ProfileName, { required: readonly string[]; optional: readonly string[] }>
> = {
  nano: { required: ['ok', 'a', 'h', 't'], optional: [] },
  standard: { required: ['agent_did', 'content', 'smsh', 'hktn_context'], optional: ['settlement_reference'] },
  pq: { required: ['agent_did', 'content', 'crypto_agile_metadata', 'pq_posture', 'auditor_verifier'], optional: [] },
};

function issueWith(profile: ProfileName, legacy: boolean): (input: IssueInput) => IssuedDocument {
  return function issueProfileDocument(input: IssueInput): IssuedDocument {
    const { key, keyId } = issuerKey(input);
    const fields = fieldsObject(input);
    checkMembers(fields, PROFILE_MEMBERS[profile].required, PROFILE_MEMBERS[profile].optional, input.name);
    const options = { now: input.issuedAt === undefined ? input.now : new Date(timestampToMillis(input.issuedAt)) };
    const document =
      legacy && profile !== 'nano'
        ? issueLegacyReceipt(
            profile,
            fields as unknown as ProfileFieldsByName['standard'],
            key.seed,
            keyId,
            input.crypto,
            options,
          )
        : issueProfileReceipt(
            profile,
            fields as unknown as ProfileFieldsByName[typeof profile],
            key.seed,
            keyId,
            input.crypto,
            options,
          );
    return { text: formatJsonDocument(document), keys: [publicEntry(key, keyId)], secrets: [] };
  };
}

function profileIssuer(name: string, profile: ProfileName, legacy: boolean, help: string): FormatIssuer {
  return {
    name,
    help: [help],
    keyAlgorithm: 'Ed25519',
    keyId: true,
    roles: [],
    secret: false,
    issuedAt: true,
    exactNumbers: true,
    wraps: false,
    issue: issueWith(profile, legacy),
  };
}

/** `evroom sign nano`, `standard`, `pq`, `legacy-standard` and `legacy-pq`, in that order. */
export const profileIssuers: readonly FormatIssuer[] = [
  profileIssuer('nano', 'nano', false, '{ok, a, h, t}'),
  profileIssuer(
    'standard',
    'standard',
    false,
    '{agent_did, content: {sha256, type}, settlement_reference?, smsh, hktn_context}',
  ),
  profileIssuer('pq', 'pq', false, '{agent_did, content, crypto_agile_metadata, pq_posture, auditor_verifier}'),
  profileIssuer('legacy-standard', 'standard', true, 'as standard, written with proof_tier as older issuers did'),
  profileIssuer('legacy-pq', 'pq', true, 'as pq, written with proof_tier'),
];
