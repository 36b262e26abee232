/**
 * Schema validation of typed contracts: the common envelope, then the body of its contract type.
 *
 * The schemas are the published files resources/schemas/typed-*.schema.json, compiled ahead of
 * time into src-shared/schemas (see scripts/build-schemas.ts). What JSON Schema cannot say is
 * checked here and reported the same way (MALFORMED, with a JSON Pointer): that a TS value names
 * a real calendar instant, that a did:key decodes to an Ed25519 key, and that a signature is
 * canonical base64url.
 */
import { pointerAppend } from '../../json';
import type { JsonValue } from '../../json/types';
import { validate as validateDelegation } from '../../schemas/typed-authority-delegation.generated';
import { validate as validateEnvelope } from '../../schemas/typed-contract.generated';
import { validate as validateDivergence } from '../../schemas/typed-divergence-record.generated';
import { validate as validateClosure } from '../../schemas/typed-effect-closure.generated';
import { validate as validateClearance } from '../../schemas/typed-imprimatur-clearance.generated';
import { validate as validateDemand } from '../../schemas/typed-proof-demand.generated';
import { validate as validateTransition } from '../../schemas/typed-proof-transition.generated';
import { validate as validateSigr } from '../../schemas/typed-sigr-chain.generated';
import { decodeB64uField, describeType, isJsonObject, problem, type JsonObject } from '../../verify/fields';
import { KEY_ID_PATTERN, MAX_KEY_ID_LENGTH, keyIdProblem } from '../../verify/keys';
import type { ReportError } from '../../verify/report';
import { schemaErrorsToReport, type SchemaValidator } from '../../verify/schema-errors';
import { isTimestamp } from '../../verify/timestamp';
import { isTypedContractType, type TypedContractType } from './contract-types';

/** A typed contract that passed its schema checks. */
export interface TypedContract {
  contract_type: TypedContractType;
  schema: 'r1.0.0';
  contract_id: string;
  issued_at: string;
  issuer: string;
  key_id: string;
  /** Any string; only Ed25519 is executed. */
  algorithm: string;
  body: JsonObject;
  payload_sha256: string;
  sig_b64u: string;
}

/** The body of an `authority.delegation` contract. */
export interface DelegationBody {
  delegator: string;
  delegate: string;
  scope: string[];
  not_before: string;
  not_after: string;
  parent_sha256?: string;
}

/** The body of a `proof.demand` contract. */
export interface DemandBody {
  demander: string;
  respondent: string;
  subject_sha256: string;
  required: string[];
  due_by: string;
}

/** The body of an `imprimatur.clearance` contract. */
export interface ClearanceBody {
  artifact_sha256: string;
  approver: string;
  policy_sha256: string;
  decision: 'cleared' | 'denied' | 'conditional';
  conditions?: string[];
}

/** One link of a `sigr.chain` contract. */
export interface SigrLink {
  signer_key_id: string;
  prev_sha256: string;
  statement_sha256: string;
  sig_b64u: string;
}

/** The body of a `sigr.chain` contract. */
export interface SigrBody {
  links: SigrLink[];
}

/** The body of a `divergence.record` contract. */
export interface DivergenceBody {
  expected_sha256: string;
  observed_sha256: string;
  subject: string;
  severity: 'low' | 'medium' | 'high' | 'critical';
  detected_at: string;
}

/** The body of an `effect.closure` contract. */
export interface ClosureBody {
  effect_id: string;
  origin_receipt_sha256: string;
  outcome: 'succeeded' | 'failed' | 'cancelled';
  closed_at: string;
}

/** The body of a `proof.transition` contract. */
export interface TransitionBody {
  subject: string;
  from_state: TransitionState;
  to_state: TransitionState;
  prior_sha256?: string;
  at: string;
}

/** The proof states of `proof.transition`. */
export type TransitionState = 'pending' | 'verified' | 'rejected' | 'revoked';

/** The result of reading a typed contract: the contract, or why it is malformed. */
export type TypedContractReading =
  { ok: true; contract: TypedContract } | { ok: false; problems: ReportError[]; contractType?: TypedContractType };

const BODY_VALIDATORS: Readonly<Record<TypedContractType, SchemaValidator>> = {
  'authority.delegation': validateDelegation,
  'proof.demand': validateDemand,
  'imprimatur.clearance': validateClearance,
  'sigr.chain': validateSigr,
  'divergence.record': validateDivergence,
  'effect.closure': validateClosure,
  'proof.transition': validateTransition,
};

/** The body members of each contract type that are TS timestamps. */
const BODY_TIMESTAMPS: Readonly<Record<TypedContractType, readonly string[]>> = {
  'authority.delegation': ['not_before', 'not_after'],
  'proof.demand': ['due_by'],
  'imprimatur.clearance': [],
  'sigr.chain': [],
  'divergence.record': ['detected_at'],
  'effect.closure': ['closed_at'],
  'proof.transition': ['at'],
};

// The schemas' TS pattern; a value of this shape that is no calendar instant (2026-02-30) is
// reported by the calendar check, anything else already by the schema.
const SIGNATURE_SHAPE = /^[A-Za-z0-9_-]{86}$/;
const TIMESTAMP_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * Validate a typed contract against the envelope schema and its body's schema.
 *
 * Every problem is collected (envelope and body alike), with paths relative to the contract.
 * `contractType` is returned with the problems when the contract names a known type, so a
 * report can still say which contract it was.
 *
 * @param value - Any parsed JSON value.
 * @returns The contract, typed, or its problems.
 */
export function readTypedContract(value: JsonValue): TypedContractReading {
  if (!isJsonObject(value)) {
    return {
      ok: false,
      problems: [problem('invalid_type', '', `A typed contract is a JSON object, got ${describeType(value)}.`)],
    };
  }
  const problems: ReportError[] = [];
  if (!validateEnvelope(value)) problems.push(...schemaErrorsToReport(validateEnvelope.errors, ''));
  problems.push(...timestampProblems(value, '', ['issued_at']));
  problems.push(...keyIdProblems(value['key_id'], '/key_id'));
  problems.push(...signatureProblems(value['sig_b64u'], '/sig_b64u'));
  const type = value['contract_type'];
  const body = value['body'];
  if (isTypedContractType(type) && isJsonObject(body)) {
    const validateBody = BODY_VALIDATORS[type];
    if (!validateBody(body)) problems.push(...schemaErrorsToReport(validateBody.errors, '/body'));
    problems.push(...timestampProblems(body, '/body', BODY_TIMESTAMPS[type]));
    if (type === 'sigr.chain' && Array.isArray(body['links'])) {
      body['links'].forEach((link, index) => {
        if (!isJsonObject(link)) return;
        problems.push(...keyIdProblems(link['signer_key_id'], `/body/links/${index}/signer_key_id`));
        problems.push(...signatureProblems(link['sig_b64u'], `/body/links/${index}/sig_b64u`));
      });
    }
  }
  if (problems.length > 0) {
    return isTypedContractType(type) ? { ok: false, problems, contractType: type } : { ok: false, problems };
  }
  return { ok: true, contract: value as unknown as TypedContract };
}

function timestampProblems(object: JsonObject, path: string, names: readonly string[]): ReportError[] {
  const problems: ReportError[] = [];
  for (const name of names) {
    const text = object[name];
    if (typeof text === 'string' && TIMESTAMP_SHAPE.test(text) && !isTimestamp(text)) {
      problems.push(
        problem(
          'invalid_timestamp',
          pointerAppend(path, name),
          `"${name}" is not a calendar instant (month, day, hour, minute or second out of range).`,
        ),
      );
    }
  }
  return problems;
}

function signatureProblems(signature: JsonValue | undefined, path: string): ReportError[] {
  // 86 base64url characters carry 516 bits for 512: the 4 spare bits must be zero, or the same
  // signature would have several spellings.
  if (typeof signature !== 'string' || !SIGNATURE_SHAPE.test(signature) || decodeB64uField(signature, 64) !== undefined)
    return [];
  return [
    problem(
      'invalid_signature_encoding',
      path,
      '"sig_b64u" is not canonical base64url: its last character has unused bits set.',
    ),
  ];
}

function keyIdProblems(keyId: JsonValue | undefined, path: string): ReportError[] {
  // What passes the schema's pattern and length and still is not a key id: a did:key that does
  // not decode to an Ed25519 key (keyIdProblem says so).
  if (typeof keyId !== 'string' || keyId.length > MAX_KEY_ID_LENGTH || !KEY_ID_PATTERN.test(keyId)) return [];
  const reason = keyIdProblem(keyId);
  return reason === undefined ? [] : [problem('invalid_key_id', path, reason)];
}
