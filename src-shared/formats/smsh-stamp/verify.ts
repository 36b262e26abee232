/**
 * SMSH-Stamp v1 verification (PROTOCOL section 14; producer srotzin/smsh-stamp-verifier, whose
 * signed fixtures decide the shape; its SPEC.md describes another one, see docs/protocol.md).
 *
 * Document: `{v: "smsh-stamp/1", alg: "ed25519", kid, stamped_at, subject, council, lineage, sig}`,
 * every member required (`council` and `lineage` may be null), no other top-level member.
 * `subject` is `{kind, input_hash, output_hash, model?, context_hashes?}` with `kind` one of
 * `llm-call`, `tool-call`, `data-emit`, `model-output`, `agent-step`; `council` is
 * `{round, score, of}` (`round` one of `R3`..`R6`, `ad-hoc`; finite numbers); `lineage` is
 * `{parent_receipts: string[], depth}` (a non-negative integer).
 *
 * Decisions:
 * - `sig` is unpadded b64u of an Ed25519 signature over the UTF-8 of JCS of the document without
 *   `sig`: every other member, nested members the producer's verifier does not know included (it
 *   drops them before checking, so a member added after signing still verifies there; here the
 *   signature then fails, INVALID).
 * - `kid` is a key id under the project's one rule (verify/keys.ts: any DID or an opaque id, 1-256
 *   printable ASCII characters); the key comes from the trust store or `--keys`. No key:
 *   INDETERMINATE.
 * - `v` other than `smsh-stamp/1`, or `alg` other than `ed25519`: UNSUPPORTED, naming it.
 * - `stamped_at` is shown, not judged: the report's status is cryptographic only (the producer's
 *   verifier also refuses stamps dated over 5 minutes ahead).
 */
import { utf8Encode } from '../../crypto';
import { jcs } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import {
  decodeB64uField,
  describeType,
  isJsonObject,
  memberProblems,
  problem,
  quote,
  type JsonObject,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { keyIdProblem } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { checkKeyedSignature, unresolvedTrust } from '../../verify/signature';

/** The version this verifier executes. */
export const SMSH_VERSION = 'smsh-stamp/1';

/** The checks of an SMSH stamp. */
export const SMSH_CHECKS: readonly string[] = Object.freeze(['version', 'schema', 'signature']);

const TOP_LEVEL = ['v', 'alg', 'kid', 'stamped_at', 'subject', 'council', 'lineage', 'sig'] as const;
const KINDS: readonly string[] = ['llm-call', 'tool-call', 'data-emit', 'model-output', 'agent-step'];
const ROUNDS: readonly string[] = ['R3', 'R4', 'R5', 'R6', 'ad-hoc'];

/**
 * Recognize an SMSH stamp: `v` is a string beginning `smsh-stamp/` (any version, so that another
 * version is reported as unsupported rather than unknown).
 *
 * @param node - Any parsed document.
 * @returns `smsh-stamp`, or undefined.
 */
export function detectSmshStamp(node: JsonNode): 'smsh-stamp' | undefined {
  if (node.type !== 'object') return undefined;
  const version = node.members.find(([name]) => name === 'v')?.[1];
  return version?.type === 'string' && version.value.startsWith('smsh-stamp/') ? 'smsh-stamp' : undefined;
}

/**
 * The text an SMSH signature covers: JCS of the document without `sig`.
 *
 * @param document - The stamp as plain values.
 * @returns The JCS text.
 */
export function smshSignedText(document: JsonObject): string {
  const unsigned: JsonObject = {};
  for (const [name, member] of Object.entries(document)) {
    if (name === 'sig') continue;
    Object.defineProperty(unsigned, name, { value: member, writable: true, enumerable: true, configurable: true });
  }
  return jcs(unsigned);
}

function isNonEmptyString(value: JsonValue | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isFiniteNumber(value: JsonValue | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isStringArray(value: JsonValue | undefined): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function subjectProblems(subject: JsonValue | undefined): ReportError[] {
  if (!isJsonObject(subject)) {
    return [problem('invalid_type', '/subject', `"subject" must be an object, not ${describeType(subject)}.`)];
  }
  const problems: ReportError[] = [];
  const kind = subject['kind'];
  if (typeof kind !== 'string' || !KINDS.includes(kind)) {
    problems.push(problem('invalid_value', '/subject/kind', `"subject.kind" must be one of ${KINDS.join(', ')}.`));
  }
  for (const name of ['input_hash', 'output_hash']) {
    if (!isNonEmptyString(subject[name])) {
      problems.push(problem('invalid_value', `/subject/${name}`, `"subject.${name}" must be a non-empty string.`));
    }
  }
  if (subject['model'] !== undefined && typeof subject['model'] !== 'string') {
    problems.push(problem('invalid_type', '/subject/model', '"subject.model" must be a string.'));
  }
  if (subject['context_hashes'] !== undefined && !isStringArray(subject['context_hashes'])) {
    problems.push(
      problem('invalid_type', '/subject/context_hashes', '"subject.context_hashes" must be an array of strings.'),
    );
  }
  return problems;
}

function councilProblems(council: JsonValue | undefined): ReportError[] {
  if (council === null) return [];
  if (!isJsonObject(council)) {
    return [problem('invalid_type', '/council', `"council" must be an object or null, not ${describeType(council)}.`)];
  }
  const problems: ReportError[] = [];
  const round = council['round'];
  if (typeof round !== 'string' || !ROUNDS.includes(round)) {
    problems.push(problem('invalid_value', '/council/round', `"council.round" must be one of ${ROUNDS.join(', ')}.`));
  }
  for (const name of ['score', 'of']) {
    if (!isFiniteNumber(council[name])) {
      problems.push(problem('invalid_type', `/council/${name}`, `"council.${name}" must be a number.`));
    }
  }
  return problems;
}

function lineageProblems(lineage: JsonValue | undefined): ReportError[] {
  if (lineage === null) return [];
  if (!isJsonObject(lineage)) {
    return [problem('invalid_type', '/lineage', `"lineage" must be an object or null, not ${describeType(lineage)}.`)];
  }
  const problems: ReportError[] = [];
  if (!isStringArray(lineage['parent_receipts'])) {
    problems.push(
      problem('invalid_type', '/lineage/parent_receipts', '"lineage.parent_receipts" must be an array of strings.'),
    );
  }
  const depth = lineage['depth'];
  if (!(typeof depth === 'number' && Number.isSafeInteger(depth) && depth >= 0)) {
    problems.push(problem('invalid_value', '/lineage/depth', '"lineage.depth" must be a non-negative integer.'));
  }
  return problems;
}

/**
 * Verify an SMSH-Stamp v1 document.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `smsh-stamp`, trust of the key `kid` resolves to.
 */
export function verifySmshStamp(input: FormatInput): Report {
  const builder = new ReportBuilder('smsh-stamp', SMSH_CHECKS);
  const document = input.value;
  if (!isJsonObject(document)) {
    builder.fail(
      'MALFORMED',
      'schema',
      'An SMSH stamp is a JSON object.',
      problem('invalid_type', '', 'Not an object.'),
    );
    return builder.build();
  }
  const version = document['v'];
  if (version !== SMSH_VERSION) {
    const named = typeof version === 'string' ? quote(version) : describeType(version);
    builder.unsupported(
      'version',
      `SMSH-Stamp version ${named} is not one this verifier executes (only ${SMSH_VERSION}).`,
      problem('unsupported_version', '/v', `Unsupported SMSH-Stamp version ${named}.`),
    );
    return builder.build();
  }
  const alg = document['alg'];
  if (typeof alg === 'string' && alg.length > 0 && alg !== 'ed25519') {
    builder.unsupported(
      'version',
      `SMSH-Stamp algorithm ${quote(alg)} is not one this verifier executes (only ed25519).`,
      problem('unsupported_algorithm', '/alg', `Unsupported SMSH-Stamp algorithm ${quote(alg)}.`),
    );
    return builder.build();
  }
  const problems: ReportError[] = memberProblems(document, '', TOP_LEVEL);
  if (alg !== 'ed25519' && !problems.some((error) => error.path === '/alg')) {
    problems.push(problem('invalid_value', '/alg', '"alg" must be "ed25519".'));
  }
  const kid = document['kid'];
  const kidProblem = kid === undefined ? undefined : keyIdProblem(kid);
  if (kidProblem !== undefined) problems.push(problem('invalid_key_id', '/kid', `"kid": ${kidProblem}`));
  if (document['stamped_at'] !== undefined && !isNonEmptyString(document['stamped_at'])) {
    problems.push(problem('invalid_value', '/stamped_at', '"stamped_at" must be a non-empty string.'));
  }
  if (document['subject'] !== undefined) problems.push(...subjectProblems(document['subject']));
  if (document['council'] !== undefined) problems.push(...councilProblems(document['council']));
  if (document['lineage'] !== undefined) problems.push(...lineageProblems(document['lineage']));
  const signature = decodeB64uField(document['sig'], 64);
  if (document['sig'] !== undefined && signature === undefined) {
    problems.push(problem('invalid_signature_encoding', '/sig', '"sig" must be 64 bytes as unpadded base64url.'));
  }
  if (problems.length > 0 || signature === undefined || typeof kid !== 'string') {
    builder.pass('version', `v is ${SMSH_VERSION}, alg is ed25519.`);
    builder.fail('MALFORMED', 'schema', 'The stamp does not have the SMSH-Stamp v1 shape.', problems);
    return builder.build();
  }
  builder.pass('version', `v is ${SMSH_VERSION}, alg is ed25519.`);
  builder.pass('schema', 'The stamp has the SMSH-Stamp v1 shape.');
  const key = checkKeyedSignature(builder, input.ctx, {
    checkId: 'signature',
    keyId: kid,
    signature,
    message: utf8Encode(smshSignedText(document)),
    keyIdPath: '/kid',
    signaturePath: '/sig',
  });
  builder.setTrust(key?.trust ?? unresolvedTrust(kid));
  return builder.build();
}
