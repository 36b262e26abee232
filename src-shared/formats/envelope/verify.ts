/**
 * General envelope svc-receipt-v1 verification (PROTOCOL section 4, spec 2.4).
 *
 * `signatures.{requester,operator,service}` each hold `{key_id, sig_b64u}`: an Ed25519
 * signature over the 32 raw bytes of SHA-256(JCS(envelope without `signatures`)), as in Rule D1.
 *
 * Decisions:
 * - Spec 2.4 is an illustrative field map, so the envelope is open: every member other than
 *   `signatures` is covered by the signatures and may be anything. Checked: `v` is exactly
 *   `svc-receipt-v1`; `receipt_id`, when present, is a string starting `rcp_`; `issued_at`,
 *   when present, is a TS timestamp; `signatures` is an object whose members are only the three
 *   roles, each exactly `{key_id, sig_b64u}` with a well-formed key id and a 64-byte b64u
 *   signature.
 * - Each role is its own check (`signature.requester`, `signature.operator`,
 *   `signature.service`). A missing role, or a key id no source resolves, is `unavailable`
 *   (status at least INDETERMINATE, never PASS). A key found with another algorithm than Ed25519
 *   is a failing check (INVALID: the signature cannot verify under that key).
 * - Tampering (MISMATCH) versus a forged signature (INVALID): the envelope has no digest member,
 *   so the signatures are its only integrity binding. Check `content` compares them: when two or
 *   more roles' keys resolve and not one of their signatures verifies, the content disagrees
 *   with what every signer signed, so it was altered after signing (MISMATCH). When at least one
 *   verifies, the content is what that signer signed and a failing role is a bad signature over
 *   consistent content (INVALID). With fewer than two resolved signatures the two cases cannot
 *   be told apart: `content` passes if the one signature verifies and is `unchecked`
 *   otherwise, and a failing signature stays INVALID.
 * - One key, one role (PROTOCOL section 0): a role whose key id, or whose resolved key bytes, are
 *   an earlier role's fails (INVALID, `key_reused`) and is not counted, so pasting the service's
 *   `{key_id, sig_b64u}` in as the operator never passes and the content check counts distinct
 *   signers only.
 * - Trust is the trust of the service role's key: the service is the issuer that vouches for
 *   the envelope. Without a service signature trust is `not_applicable`; with a service key id
 *   that resolves to nothing it is `unpinned`. Each role's check detail states that role's key and
 *   trust, judged for that role: a pinned key whose `roles` do not list the role it signs in is
 *   not `trusted` for it, and then neither is the envelope (roles permuted among pinned keys are
 *   never PASS trusted).
 */
import { equalBytes, utf8Encode } from '../../crypto';
import { jcs, pointerAppend } from '../../json';
import type { JsonNode } from '../../json/types';
import {
  decodeB64uField,
  describeType,
  isJsonObject,
  type JsonObject,
  memberProblems,
  memberString,
  problem,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { isKeyId, keyIdProblem, type ResolvedKey } from '../../verify/keys';
import type { Report, ReportError, TrustResult } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkKeyedSignature, unresolvedTrust } from '../../verify/signature';
import { isTimestamp } from '../../verify/timestamp';

/** The envelope's version marker. */
export const ENVELOPE_VERSION = 'svc-receipt-v1';

/** The signing roles, in report order. */
export const ENVELOPE_ROLES = ['requester', 'operator', 'service'] as const;
/** One signing role of an envelope. */
export type EnvelopeRole = (typeof ENVELOPE_ROLES)[number];

/** The checks of an envelope report, in report order. */
export const ENVELOPE_CHECKS = Object.freeze([
  'schema',
  ...ENVELOPE_ROLES.map((role) => `signature.${role}`),
  'content',
] as const);

/**
 * Recognize an svc-receipt-v1 envelope: an object with `v` equal to `svc-receipt-v1`.
 *
 * @param node - Any parsed document.
 * @returns `envelope/svc-receipt-v1` or undefined.
 */
export function detectEnvelope(node: JsonNode): 'envelope/svc-receipt-v1' | undefined {
  return memberString(node, 'v') === ENVELOPE_VERSION ? 'envelope/svc-receipt-v1' : undefined;
}

/**
 * The digest every role signs: SHA-256(JCS(envelope without `signatures`)).
 *
 * @param envelope - The envelope, with or without `signatures`.
 * @param sha256 - The SHA-256 function (a provider's).
 * @returns The 32-byte digest (the signed message itself).
 * @throws TypeError if the envelope is not a JSON object.
 */
export function envelopeDigest(envelope: JsonObject, sha256: (data: Uint8Array) => Uint8Array): Uint8Array {
  return sha256(utf8Encode(jcs(withoutSignatures(envelope))));
}

/**
 * A shallow copy of an envelope without its `signatures` member.
 *
 * A member named `__proto__` stays an own data member of the copy, never its prototype.
 *
 * @param envelope - The envelope.
 * @returns The copy, members in the original order.
 * @throws TypeError if the envelope is not a JSON object.
 */
export function withoutSignatures(envelope: JsonObject): JsonObject {
  if (!isJsonObject(envelope)) throw new TypeError('An envelope must be a JSON object');
  const unsigned: JsonObject = {};
  for (const [name, member] of Object.entries(envelope)) {
    if (name !== 'signatures') {
      Object.defineProperty(unsigned, name, { value: member, writable: true, enumerable: true, configurable: true });
    }
  }
  return unsigned;
}

/**
 * Verify an svc-receipt-v1 envelope.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `envelope/svc-receipt-v1`.
 */
export function verifyEnvelope(input: FormatInput): Report {
  const builder = new ReportBuilder('envelope/svc-receipt-v1', ENVELOPE_CHECKS);
  const { value, ctx } = input;
  if (!isJsonObject(value)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'An envelope is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
    );
    return builder.build();
  }
  const problems: ReportError[] = [];
  const signatures = readSignatures(value, problems);
  if (value['v'] !== ENVELOPE_VERSION) {
    problems.push(problem('invalid_value', '/v', `"v" must be "${ENVELOPE_VERSION}".`));
  }
  const receiptId = value['receipt_id'];
  if (receiptId !== undefined && (typeof receiptId !== 'string' || !receiptId.startsWith('rcp_'))) {
    problems.push(problem('invalid_receipt_id', '/receipt_id', '"receipt_id" must be a string starting with "rcp_".'));
  }
  const issuedAt = value['issued_at'];
  if (issuedAt !== undefined && !isTimestamp(issuedAt)) {
    problems.push(
      problem('invalid_timestamp', '/issued_at', '"issued_at" must be a timestamp YYYY-MM-DDThh:mm:ss[.fff]Z.'),
    );
  }
  if (problems.length > 0 || signatures === undefined) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the svc-receipt-v1 envelope schema.', problems);
    return builder.build();
  }
  builder.pass('schema', 'v, signatures and the optional receipt_id and issued_at are well-formed.');

  const digest = envelopeDigest(value, ctx.crypto.sha256);
  let serviceTrust: TrustResult = {
    status: 'not_applicable',
    detail: 'The envelope carries no service signature, so no issuer key was judged.',
  };
  let misattributed: { role: EnvelopeRole; trust: TrustResult } | undefined;
  // Distinct signers seen so far, by key id and by resolved key bytes: one key, one role.
  const signers: { role: EnvelopeRole; keyId: string; key: ResolvedKey | undefined }[] = [];
  let resolved = 0;
  let verified = 0;
  for (const role of ENVELOPE_ROLES) {
    const checkId = `signature.${role}`;
    const path = `/signatures/${role}`;
    const entry = signatures.get(role);
    if (entry === undefined) {
      builder.unavailable(
        checkId,
        `The envelope carries no ${role} signature.`,
        problem('signature_missing', path, `The ${role} signature is missing.`),
      );
      continue;
    }
    const reusedId = signers.find((signer) => signer.keyId === entry.keyId);
    if (reusedId !== undefined) {
      reuseFailure(
        builder,
        role,
        reusedId.role,
        `${path}/key_id`,
        `names the same key id as the ${reusedId.role} signature`,
      );
      if (role === 'service')
        serviceTrust = {
          status: 'not_applicable',
          detail: "The service signature reuses another role's key, so no issuer key was judged.",
        };
      continue;
    }
    const key = checkKeyedSignature(builder, ctx, {
      checkId,
      keyId: entry.keyId,
      signature: entry.signature,
      message: digest,
      keyIdPath: `${path}/key_id`,
      signaturePath: `${path}/sig_b64u`,
      label: `The ${role} signature`,
      role,
    });
    const reusedKey =
      key === undefined
        ? undefined
        : signers.find((signer) => signer.key !== undefined && equalBytes(signer.key.public_key, key.public_key));
    signers.push({ role, keyId: entry.keyId, key });
    if (reusedKey !== undefined) {
      reuseFailure(
        builder,
        role,
        reusedKey.role,
        `${path}/key_id`,
        `resolves to the same key as the ${reusedKey.role} signature`,
      );
      if (role === 'service')
        serviceTrust = {
          status: 'not_applicable',
          detail: "The service signature reuses another role's key, so no issuer key was judged.",
        };
      continue;
    }
    if (role === 'service') serviceTrust = key?.trust ?? unresolvedTrust(entry.keyId);
    if (key?.source === 'pinned' && key.entry?.roles !== undefined && !key.entry.roles.includes(role))
      misattributed ??= { role, trust: key.trust };
    if (key !== undefined && key.algorithm === 'Ed25519') {
      resolved += 1;
      if (builder.checkStatus(checkId) === 'pass') verified += 1;
    }
  }
  checkContent(builder, resolved, verified);
  // A key the trust store pins for other roles signed here: the envelope's signers are not who
  // the trust store says, so the envelope is not trusted whatever the service key's trust.
  if (misattributed !== undefined && serviceTrust.status === 'trusted') {
    builder.setTrust({
      ...misattributed.trust,
      detail: `The ${misattributed.role} signature: ${misattributed.trust.detail ?? ''}`.trim(),
    });
  } else {
    builder.setTrust(serviceTrust);
  }
  return builder.build();
}

/** One key may sign for one role only (PROTOCOL section 0): a second role of the same key fails. */
function reuseFailure(
  builder: ReportBuilder,
  role: EnvelopeRole,
  earlier: EnvelopeRole,
  path: string,
  what: string,
): void {
  builder.fail(
    'INVALID',
    `signature.${role}`,
    `The ${role} signature ${what}: one key may sign for one role only, so it does not count as a ${role} signature.`,
    problem('key_reused', path, `The ${role} signature ${what}.`),
  );
}

/** The `content` check: see the module header for why several failing signers mean MISMATCH. */
function checkContent(builder: ReportBuilder, resolved: number, verified: number): void {
  if (verified > 0) {
    builder.pass('content', `The content is what ${verified === 1 ? 'a signer' : `${verified} signers`} signed.`);
  } else if (resolved >= 2) {
    builder.fail(
      'MISMATCH',
      'content',
      `None of the ${resolved} signatures whose keys are known verifies: the content was altered after signing.`,
      problem('content_mismatch', '', 'The envelope does not match what any of its signers signed.'),
    );
  } else {
    builder.unchecked(
      'content',
      'With fewer than two verifiable signatures, alteration cannot be told apart from a bad signature.',
    );
  }
}

interface RoleSignature {
  keyId: string;
  signature: Uint8Array;
}

function readSignatures(value: JsonObject, problems: ReportError[]): Map<EnvelopeRole, RoleSignature> | undefined {
  const signatures = value['signatures'];
  if (signatures === undefined) {
    problems.push(problem('missing_property', '/signatures', 'Required member "signatures" is missing.'));
    return undefined;
  }
  if (!isJsonObject(signatures)) {
    problems.push(
      problem('invalid_type', '/signatures', `"signatures" must be an object, got ${describeType(signatures)}.`),
    );
    return undefined;
  }
  const before = problems.length;
  problems.push(...memberProblems(signatures, '/signatures', [], ENVELOPE_ROLES));
  const result = new Map<EnvelopeRole, RoleSignature>();
  for (const role of ENVELOPE_ROLES) {
    const entry = signatures[role];
    if (entry === undefined) continue;
    const path = pointerAppend('/signatures', role);
    if (!isJsonObject(entry)) {
      problems.push(
        problem('invalid_type', path, `The ${role} signature must be an object, got ${describeType(entry)}.`),
      );
      continue;
    }
    problems.push(...memberProblems(entry, path, ['key_id', 'sig_b64u']));
    const keyId = entry['key_id'];
    const keyIdError = Object.hasOwn(entry, 'key_id') ? keyIdProblem(keyId) : undefined;
    if (keyIdError !== undefined) {
      problems.push(problem('invalid_key_id', `${path}/key_id`, `"key_id" is not a key id: ${keyIdError}`));
    }
    const signature = decodeB64uField(entry['sig_b64u'], 64);
    if (Object.hasOwn(entry, 'sig_b64u') && signature === undefined) {
      problems.push(
        problem('invalid_signature_encoding', `${path}/sig_b64u`, '"sig_b64u" must be 64 bytes as unpadded base64url.'),
      );
    }
    if (isKeyId(keyId) && signature !== undefined) result.set(role, { keyId, signature });
  }
  return problems.length === before ? result : undefined;
}
