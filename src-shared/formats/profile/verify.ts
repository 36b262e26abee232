/**
 * Profile receipt verification (PROTOCOL section 3, spec 2.3): nano, standard, pq and legacy
 * proof_tier receipts.
 *
 * Every profile carries a `receipt` block and is signed the same way:
 * `sig_b64u = b64u(Ed25519-sign(sk, SHA-256(JCS(document without receipt.sig_b64u))))`.
 *
 * Decisions:
 * - Shapes are the published schemas resources/schemas/profile-{nano,standard,pq,legacy}.schema.json.
 *   Unknown members are refused at every level (`unknown_property`, MALFORMED): r1.0.0 is a fixed
 *   version, and a member we do not know could change what the receipt means in a way no report
 *   can show. (The spec's "additive across minor versions" describes the general envelope only.)
 * - A profile receipt has no separate digest member, so there is no integrity binding to
 *   disagree: a changed field shows only as a signature that no longer verifies, INVALID (never
 *   MISMATCH).
 * - Size budgets: a nano receipt is at most {@link NANO_BYTE_BUDGET} bytes and a standard one at
 *   most {@link STANDARD_BYTE_BUDGET}, counted as the UTF-8 of JCS of the whole document
 *   (signature included). Over budget is MALFORMED (`size_budget_exceeded`, check
 *   `size_budget`); the signature is still checked so the report says whether it is genuine.
 *   pq has no byte budget (spec 8 gives it only a retention target).
 * - pq: `crypto_agile_metadata.current_alg` other than exactly `Ed25519` is UNSUPPORTED (check
 *   `algorithm`) and the signature is not executed. Every pq report, whatever its status,
 *   carries {@link PQ_POSTURE_NOTE}: the profile declares a posture and its signature is Ed25519.
 * - Legacy: a document with `proof_tier` and no `receipt_profile` is `legacy/proof_tier`. It
 *   verifies as the profile its tier names (`standard` or `pq`, any other value is MALFORMED),
 *   with the same fields and budget, except that `receipt_schema_version` is optional (legacy
 *   emits predate it; when present it must be r1.0.0). Its report carries {@link LEGACY_NOTE}.
 * - `settlement_reference` (standard, optional) adds {@link SETTLEMENT_NOTE}. `sealed_evidence_ref`
 *   (pq) must be null: r1.0.0 defines no reference form. Nano `ok: false` adds a note.
 * - The signer is `receipt.k` (nano) or `receipt.key_id`, resolved by key id: pinned, then
 *   did:key (decoded offline), then advertised; none is INDETERMINATE. Trust is that key's.
 */
import { utf8Encode, utf8Length } from '../../crypto';
import { jcs, jcsTree } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import { validate as validateLegacy } from '../../schemas/profile-legacy.generated';
import { validate as validateNano } from '../../schemas/profile-nano.generated';
import { validate as validatePq } from '../../schemas/profile-pq.generated';
import { validate as validateStandard } from '../../schemas/profile-standard.generated';
import {
  decodeB64uField,
  describeType,
  isJsonObject,
  type JsonObject,
  memberNode,
  memberString,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { isKeyId, keyIdProblem } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { schemaErrorsToReport, type SchemaValidator } from '../../verify/schema-errors';
import { checkKeyedSignature, unresolvedTrust } from '../../verify/signature';
import { isTimestamp } from '../../verify/timestamp';

/** The three receipt profiles. */
export type ProfileName = 'nano' | 'standard' | 'pq';

/** The report formats of profile receipts. */
export type ProfileFormat = 'profile/nano' | 'profile/standard' | 'profile/pq' | 'legacy/proof_tier';

/** The profiles, in the spec's order. */
export const PROFILE_NAMES: readonly ProfileName[] = ['nano', 'standard', 'pq'];

/** The profile receipt schema version (`v` in nano, `receipt_schema_version` elsewhere). */
export const PROFILE_SCHEMA_VERSION = 'r1.0.0';

/** The nano byte budget: UTF-8 bytes of JCS of the whole receipt (spec 8, PROTOCOL 3). */
export const NANO_BYTE_BUDGET = 600;

/** The standard byte budget ("up to 3 KB"): UTF-8 bytes of JCS of the whole receipt. */
export const STANDARD_BYTE_BUDGET = 3072;

/** Each profile's byte budget; pq has none. */
export const PROFILE_BYTE_BUDGETS: Readonly<Record<ProfileName, number | undefined>> = Object.freeze({
  nano: NANO_BYTE_BUDGET,
  standard: STANDARD_BYTE_BUDGET,
  pq: undefined,
});

/** The note every pq report carries (PROTOCOL sections 1 and 3). */
export const PQ_POSTURE_NOTE = 'pq profile declares posture only; no post-quantum signature was executed';

/** The note every legacy proof_tier report carries. */
export const LEGACY_NOTE =
  'proof_tier is a legacy field: this receipt was verified as the profile its proof_tier names. ' +
  'New receipts declare receipt_profile and receipt_schema_version instead.';

/** The note a report carries when the receipt has a settlement_reference (spec 2.3). */
export const SETTLEMENT_NOTE = 'settlement_reference is a reference only; it is not proof of payment or anchoring.';

/** The note a nano report carries when the receipt states `ok: false`. */
export const NANO_NOT_OK_NOTE = 'The receipt states ok: false; a valid signature shows only that the issuer said so.';

/** The checks of a profile report, in report order: with a byte budget, and for pq. */
export const PROFILE_CHECKS = Object.freeze({
  budgeted: Object.freeze(['schema', 'size_budget', 'signature'] as const),
  pq: Object.freeze(['schema', 'algorithm', 'signature'] as const),
});

/** The algorithm every profile signs with. */
const PROFILE_ALGORITHM = 'Ed25519';

const VALIDATORS: Readonly<Record<ProfileName, SchemaValidator>> = {
  nano: validateNano,
  standard: validateStandard,
  pq: validatePq,
};

/**
 * Recognize a profile receipt by its profile marker, without validating it.
 *
 * - `receipt_profile` present: `profile/pq` when it is `pq`, else `profile/standard` (the spec's
 *   default profile; a wrong value is then reported MALFORMED at `/receipt_profile`).
 * - `proof_tier` present without `receipt_profile`: `legacy/proof_tier`.
 * - `profile` equal to `nano`, or `profile` together with `v` and `receipt`: `profile/nano`.
 *
 * @param node - Any parsed document.
 * @returns The profile format, or undefined.
 */
export function detectProfile(node: JsonNode): ProfileFormat | undefined {
  if (node.type !== 'object') return undefined;
  if (memberNode(node, 'receipt_profile') !== undefined) {
    return memberString(node, 'receipt_profile') === 'pq' ? 'profile/pq' : 'profile/standard';
  }
  if (memberNode(node, 'proof_tier') !== undefined) return 'legacy/proof_tier';
  if (memberString(node, 'profile') === 'nano') return 'profile/nano';
  if (
    memberNode(node, 'profile') !== undefined &&
    memberNode(node, 'v') !== undefined &&
    memberNode(node, 'receipt') !== undefined
  ) {
    return 'profile/nano';
  }
  return undefined;
}

/**
 * The profile a receipt follows: its `profile`, `receipt_profile` or legacy `proof_tier`.
 *
 * @param document - A profile receipt (or anything).
 * @returns The profile, or undefined when the document names none of the three.
 */
export function profileOf(document: JsonValue): ProfileName | undefined {
  if (!isJsonObject(document)) return undefined;
  for (const name of ['receipt_profile', 'proof_tier', 'profile']) {
    if (!Object.hasOwn(document, name)) continue;
    const profile = document[name];
    return PROFILE_NAMES.find((candidate) => candidate === profile);
  }
  return undefined;
}

/**
 * The text a profile receipt's signature covers: JCS of the document without `receipt.sig_b64u`.
 *
 * @param document - The receipt, signed or not.
 * @returns The JCS text; its UTF-8 SHA-256 is the signed message.
 * @throws TypeError if the document is not an object or its `receipt` is not an object.
 */
export function profileSigningText(document: JsonObject): string {
  if (!isJsonObject(document)) throw new TypeError('A profile receipt must be a JSON object');
  const receipt = document['receipt'];
  if (!isJsonObject(receipt)) throw new TypeError('A profile receipt needs a "receipt" object');
  const unsignedReceipt: JsonObject = {};
  for (const [name, member] of Object.entries(receipt)) {
    if (name !== 'sig_b64u') defineMember(unsignedReceipt, name, member);
  }
  const unsigned: JsonObject = {};
  for (const [name, member] of Object.entries(document)) {
    defineMember(unsigned, name, name === 'receipt' ? unsignedReceipt : member);
  }
  return jcs(unsigned);
}

/**
 * The 32-byte message a profile receipt's Ed25519 signature signs.
 *
 * @param document - The receipt, signed or not.
 * @param sha256 - The SHA-256 function (a provider's).
 * @returns SHA-256 of the UTF-8 of {@link profileSigningText}.
 * @throws TypeError as {@link profileSigningText} does.
 */
export function profileDigest(document: JsonObject, sha256: (data: Uint8Array) => Uint8Array): Uint8Array {
  return sha256(utf8Encode(profileSigningText(document)));
}

/**
 * {@link profileSigningText} from the parsed document: JCS of the tree with `receipt.sig_b64u`
 * left out. The same text (a test checks), without copying the document into plain objects.
 *
 * @param tree - The parsed receipt.
 * @returns The JCS text.
 * @throws TypeError if the document is not an object or its `receipt` is not an object.
 */
export function profileSigningTextOfTree(tree: JsonNode): string {
  if (tree.type !== 'object') throw new TypeError('A profile receipt must be a JSON object');
  let found = false;
  const members = tree.members.map(([name, member]): [string, JsonNode] => {
    if (name !== 'receipt') return [name, member];
    if (member.type !== 'object') throw new TypeError('A profile receipt needs a "receipt" object');
    found = true;
    return [name, { type: 'object', members: member.members.filter(([inner]) => inner !== 'sig_b64u') }];
  });
  if (!found) throw new TypeError('A profile receipt needs a "receipt" object');
  return jcsTree({ type: 'object', members });
}

/**
 * The size a byte budget is measured in: UTF-8 bytes of JCS of the whole receipt.
 *
 * @param document - The receipt.
 * @returns The byte count.
 * @throws TypeError if the document is not JSON.
 */
export function profileByteLength(document: JsonValue): number {
  return utf8Encode(jcs(document)).length;
}

/**
 * Verify a profile receipt (nano, standard, pq or legacy proof_tier).
 *
 * @param input - The parsed document and context; `input.format` is what detection answered.
 * @returns The report, format as detected.
 */
export function verifyProfile(input: FormatInput): Report {
  const { value, ctx } = input;
  const format = toProfileFormat(input.format, input.tree);
  const legacy = format === 'legacy/proof_tier';
  const profile = legacy ? legacyTier(value) : profileFromFormat(format);
  const builder = new ReportBuilder(format, profile === 'pq' ? PROFILE_CHECKS.pq : PROFILE_CHECKS.budgeted);
  if (profile === 'pq') builder.note(PQ_POSTURE_NOTE);
  if (legacy) builder.note(LEGACY_NOTE);

  if (!isJsonObject(value)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'A profile receipt is a JSON object.',
      problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`),
    );
    return builder.build();
  }
  if (profile === 'standard' && isJsonObject(value['settlement_reference'])) builder.note(SETTLEMENT_NOTE);

  const validator = legacy ? validateLegacy : VALIDATORS[profile];
  const problems = validator(value) ? [] : schemaErrorsToReport(validator.errors);
  const receipt = isJsonObject(value['receipt']) ? value['receipt'] : {};
  const keyIdName = profile === 'nano' ? 'k' : 'key_id';
  const keyId = receipt[keyIdName];
  const signature = decodeB64uField(receipt['sig_b64u'], 64);
  if (problems.length === 0) problems.push(...semanticProblems(value, keyIdName));
  if (problems.length > 0 || !isKeyId(keyId) || signature === undefined) {
    builder.fail(
      'MALFORMED',
      'schema',
      `The document does not fit the ${describeProfile(profile, legacy)} schema.`,
      problems,
    );
    return builder.build();
  }
  builder.pass(
    'schema',
    `The document fits the ${describeProfile(profile, legacy)} schema (${schemaName(profile, legacy)}).`,
  );
  if (value['ok'] === false) builder.note(NANO_NOT_OK_NOTE);

  const budget = PROFILE_BYTE_BUDGETS[profile];
  if (budget !== undefined) checkBudget(builder, utf8Length(input.canonical()), profile, budget);

  if (profile === 'pq') {
    const metadata = value['crypto_agile_metadata'];
    const algorithm = isJsonObject(metadata) ? metadata['current_alg'] : undefined;
    if (algorithm !== PROFILE_ALGORITHM) {
      builder.unsupported(
        'algorithm',
        `current_alg ${quote(String(algorithm))} is not supported; profile receipts are verified with Ed25519 only.`,
        problem(
          'unsupported_algorithm',
          '/crypto_agile_metadata/current_alg',
          `Unsupported current_alg ${quote(String(algorithm))}; only "Ed25519" is verified.`,
        ),
      );
      // Trust stays not_applicable: no signature was evaluated (as for classical receipts).
      builder.unsupported('signature', 'Not executed: the receipt names an algorithm we do not verify.');
      return builder.build();
    }
    builder.pass('algorithm', 'current_alg is Ed25519, the algorithm the receipt is signed with.');
  }

  // No digest member exists to compare, so a changed field can only surface here, as INVALID.
  const key = checkKeyedSignature(builder, ctx, {
    checkId: 'signature',
    keyId,
    signature,
    message: ctx.crypto.sha256(utf8Encode(profileSigningTextOfTree(input.tree))),
    keyIdPath: `/receipt/${keyIdName}`,
    signaturePath: '/receipt/sig_b64u',
    label: 'The receipt signature',
  });
  builder.setTrust(key?.trust ?? unresolvedTrust(keyId));
  return builder.build();
}

function semanticProblems(document: JsonObject, keyIdName: string): ReportError[] {
  const problems: ReportError[] = [];
  const receipt = document['receipt'];
  // The schema checks a key id's shape (PROTOCOL section 0); only decoding shows a did:key holds
  // an Ed25519 key.
  const keyIdError = isJsonObject(receipt) ? keyIdProblem(receipt[keyIdName]) : undefined;
  if (keyIdError !== undefined) {
    problems.push(problem('invalid_key_id', `/receipt/${keyIdName}`, `"${keyIdName}" is not a key id: ${keyIdError}`));
  }
  if (Object.hasOwn(document, 'issued_at') && !isTimestamp(document['issued_at'])) {
    problems.push(
      problem(
        'invalid_timestamp',
        '/issued_at',
        '"issued_at" must name a real UTC instant (YYYY-MM-DDThh:mm:ss[.fff]Z).',
      ),
    );
  }
  return problems;
}

function checkBudget(builder: ReportBuilder, size: number, profile: ProfileName, budget: number): void {
  if (size <= budget) {
    builder.pass(
      'size_budget',
      `The receipt is ${size} bytes as JCS, within the ${profile} budget of ${budget} bytes.`,
    );
    return;
  }
  builder.fail(
    'MALFORMED',
    'size_budget',
    `The receipt is ${size} bytes as JCS, over the ${profile} budget of ${budget} bytes.`,
    problem(
      'size_budget_exceeded',
      '',
      `A ${profile} receipt is at most ${budget} bytes as JCS (UTF-8); this one is ${size} bytes.`,
    ),
  );
}

function toProfileFormat(format: string, tree: JsonNode): ProfileFormat {
  if (
    format === 'profile/nano' ||
    format === 'profile/standard' ||
    format === 'profile/pq' ||
    format === 'legacy/proof_tier'
  ) {
    return format;
  }
  // Called directly with another format: decide from the document itself.
  return detectProfile(tree) ?? 'profile/standard';
}

function profileFromFormat(format: Exclude<ProfileFormat, 'legacy/proof_tier'>): ProfileName {
  if (format === 'profile/nano') return 'nano';
  return format === 'profile/pq' ? 'pq' : 'standard';
}

/** A legacy receipt's profile: pq for `proof_tier: "pq"`, standard otherwise (the schema refuses other values). */
function legacyTier(value: JsonValue): ProfileName {
  return isJsonObject(value) && value['proof_tier'] === 'pq' ? 'pq' : 'standard';
}

function describeProfile(profile: ProfileName, legacy: boolean): string {
  return legacy ? `legacy proof_tier (${profile})` : `${profile} profile receipt`;
}

function schemaName(profile: ProfileName, legacy: boolean): string {
  return legacy ? 'profile-legacy' : `profile-${profile}`;
}

function defineMember(target: JsonObject, name: string, member: JsonValue): void {
  // A member named __proto__ stays an own data member, never the prototype.
  Object.defineProperty(target, name, { value: member, writable: true, enumerable: true, configurable: true });
}
