/**
 * Typed contract verification (PROTOCOL section 6): format `typed/<contract_type>`.
 *
 * A contract is `{contract_type, schema: "r1.0.0", contract_id, issued_at, issuer, key_id,
 * algorithm, body, payload_sha256, sig_b64u}` signed under Rule D1. Its report lists, in order:
 * `schema`, `algorithm`, `payload_sha256`, `signature`, then the rule checks of its type
 * (./rules: e.g. `rule.window_ordered`; sigr.chain: `link[<i>].prev` and `link[<i>].signature`).
 *
 * Decisions:
 * - A contract_type outside the seven is MALFORMED (`not_allowed_value` at /contract_type), not
 *   UNSUPPORTED: the set of r1.0.0 contracts is closed, so such a document fits no schema we
 *   know, which is what MALFORMED means; UNSUPPORTED stays for an algorithm we recognize as a
 *   signature scheme but do not execute. Its report format is `typed/unknown` (an unknown
 *   type's text is never echoed into the format).
 * - `algorithm` is any string by schema; anything but `Ed25519` is UNSUPPORTED, the signature
 *   is not executed (`signature` unsupported, `payload_sha256` unchecked), and the rules are still
 *   evaluated so the report says everything it can.
 * - A schema failure stops verification: the signature and rules are listed `unchecked`.
 * - Trust is that of the contract's key_id. Keys of sigr links and of delegation parents are
 *   judged in their own checks' details; none of them changes the report's trust.
 * - Delegation chains: `parents` is the chain from the immediate parent up to the root, at most
 *   {@link MAX_DELEGATION_PARENTS}. Every parent is verified like the contract itself (schema,
 *   algorithm, digest, signature, window, and its relation to its own parent). The report keeps
 *   the contract's checks unprefixed and adds, for parent i, a summary check `parent[<i>]` and
 *   that parent's checks as `parent[<i>].<id>`, with its errors under `/parents/<i>/...`, so the
 *   broken link is named. The chain's status is the strongest of all links'. A root whose
 *   parent_sha256 names a parent nobody supplied leaves `rule.parent` unavailable
 *   (INDETERMINATE): a chain is only PASS when complete.
 * - Parents given with a contract that is not an authority.delegation, or more than the limit,
 *   are MALFORMED (`parents_not_applicable`, `too_many_parents` at /parents), never ignored.
 * - Paths: errors about the contract are relative to the contract (`/body/scope/0`); through
 *   {@link verifyTypedRequest} they are relative to the request (`/contract/body/scope/0`).
 *   Errors about parents are `/parents/<i>/...` in both, the index into the supplied list.
 * - With `expectedContractType` (the service route), a contract of another type is MALFORMED
 *   (`contract_type_mismatch` at /contract_type) and the report's format is the route's type.
 */
import { JsonParseError, parseJsonBytes, parseJsonTree, toPlain } from '../../json';
import type { JsonNode, JsonValue } from '../../json/types';
import type { VerifyContext } from '../../verify/context';
import {
  describeType,
  isJsonObject,
  type JsonObject,
  memberProblems,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { attributedTrust, type Report, type ReportError, type ReportFormat } from '../../verify/report';
import { ReportBuilder, checkStatusOf, singleErrorReport } from '../../verify/report-builder';
import { checkRuleD1 } from '../../verify/signature';
import {
  TYPED_ALGORITHM,
  contractTypeForRoute,
  isTypedContractType,
  type TypedContractType,
  type TypedRouteKind,
} from './contract-types';
import { TYPED_RULE_CHECKS, checkContractRule, checkDelegationParent, type DelegationParent } from './rules';
import { readTypedContract, type TypedContractReading } from './schema';
import { checkSigrLinks, sigrLinkCheckIds } from './sigr';

/** The checks every typed contract report starts with, in report order. */
export const TYPED_BASE_CHECKS = Object.freeze(['schema', 'algorithm', 'payload_sha256', 'signature'] as const);

/** The most delegation parents verified with one contract; real chains are a handful deep. */
export const MAX_DELEGATION_PARENTS = 32;

/** Options for {@link verifyTypedContract}. */
export interface TypedVerifyOptions {
  /** For an authority.delegation: its chain, from the immediate parent up to the root. */
  parents?: readonly JsonValue[];
  /** The contract type the caller expects (a service route's); another type is MALFORMED. */
  expectedContractType?: TypedContractType;
}

/**
 * Recognize a typed contract: an object with `contract_type`, `schema` and `body`.
 *
 * @param node - Any parsed document.
 * @returns `typed/<contract_type>` for the seven types, `typed/unknown` for any other
 *   contract_type, or undefined when the document is not a typed contract.
 */
export function detectTypedContract(node: JsonNode): `typed/${string}` | undefined {
  const contractType = objectMember(node, 'contract_type');
  if (
    contractType === undefined ||
    objectMember(node, 'schema') === undefined ||
    objectMember(node, 'body') === undefined
  )
    return undefined;
  return typedFormat(contractType.type === 'string' ? contractType.value : undefined);
}

/**
 * Verify a typed contract found by the registry (no parents, no expected type).
 *
 * @param input - The parsed document and context.
 * @returns The report; format `typed/<contract_type>`.
 */
export function verifyTypedFormat(input: FormatInput): Report {
  return verifyTypedContract(input.value, {}, input.ctx);
}

/**
 * Verify a typed contract, and for an authority.delegation its chain of parents.
 *
 * Never throws because of the documents: an unexpected failure inside becomes INDETERMINATE
 * with error `internal`.
 *
 * @param value - The contract as plain JSON values (parsed strictly by the caller).
 * @param options - The delegation parents and the expected contract type.
 * @param ctx - Crypto provider, pinned and advertised keys and the clock.
 * @returns The report.
 * @throws TypeError if `options.parents` is not an array or `ctx` is not a context.
 * @throws RangeError if `options.expectedContractType` is not one of the seven types.
 * @example verifyTypedContract(contract, { parents: [parent, root] }, ctx).status
 */
export function verifyTypedContract(value: JsonValue, options: TypedVerifyOptions, ctx: VerifyContext): Report {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('verifyTypedContract options must be an object');
  const parents = options.parents ?? [];
  if (!Array.isArray(parents)) throw new TypeError('verifyTypedContract options.parents must be an array');
  const expected = options.expectedContractType;
  if (expected !== undefined && !isTypedContractType(expected)) {
    throw new RangeError(`Unknown contract type ${JSON.stringify(String(expected).slice(0, 64))}`);
  }
  assertContext(ctx);
  return guarded(expected ?? (isJsonObject(value) ? value['contract_type'] : undefined), () =>
    verifyChain(value, parents, expected, ctx, ''),
  );
}

/**
 * Verify the body of `POST {typed_url}/v1/verify/<kind>`: `{contract, parents?}`.
 *
 * The body is parsed strictly (a duplicate member name, anywhere, is MALFORMED with its path),
 * must have exactly those members, and its contract must be of the route's type. Error paths
 * are relative to the request: `/contract/...` and `/parents/<i>/...`.
 *
 * @param input - The request body as text or UTF-8 bytes.
 * @param kind - The route kind, e.g. `delegation-link`.
 * @param ctx - The verification context.
 * @returns The report; format `typed/<the route's contract type>`.
 * @throws TypeError if `input` is neither a string nor a Uint8Array or `ctx` is not a context.
 * @throws RangeError if `kind` is not one of the seven route kinds.
 */
export function verifyTypedRequest(input: string | Uint8Array, kind: TypedRouteKind, ctx: VerifyContext): Report {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new TypeError('verifyTypedRequest expects the request body as a string or a Uint8Array');
  }
  const type = contractTypeForRoute(kind);
  assertContext(ctx);
  const format: ReportFormat = `typed/${type}`;
  let tree: JsonNode;
  try {
    tree = typeof input === 'string' ? parseJsonTree(input) : parseJsonBytes(input);
  } catch (error) {
    if (error instanceof JsonParseError) {
      return singleErrorReport(format, 'MALFORMED', 'parse', {
        code: error.code,
        path: error.path,
        message: `The request is not strict JSON: ${error.message} (at offset ${error.offset}).`,
      });
    }
    throw error;
  }
  return guarded(type, () => {
    const request = toPlain(tree);
    if (!isJsonObject(request)) {
      return requestShapeReport(format, [
        problem(
          'invalid_type',
          '',
          `The request must be an object {contract, parents?}, got ${describeType(request)}.`,
        ),
      ]);
    }
    const problems = memberProblems(request, '', ['contract'], ['parents']);
    const parents = request['parents'] ?? [];
    if (!Array.isArray(parents)) {
      problems.push(
        problem('wrong_type', '/parents', `"parents" must be an array of contracts, got ${describeType(parents)}.`),
      );
    }
    if (problems.length > 0 || !Array.isArray(parents)) return requestShapeReport(format, problems);
    return verifyChain(request['contract'] as JsonValue, parents, type, ctx, '/contract');
  });
}

function verifyChain(
  value: JsonValue,
  parents: readonly JsonValue[],
  expected: TypedContractType | undefined,
  ctx: VerifyContext,
  contractPath: string,
): Report {
  const claimedType = expected ?? (isJsonObject(value) ? value['contract_type'] : undefined);
  const requestProblems: ReportError[] = [];
  if (parents.length > 0 && claimedType !== 'authority.delegation') {
    requestProblems.push(
      problem(
        'parents_not_applicable',
        '/parents',
        'Parents are verified only with an authority.delegation contract; they were not ignored, they are refused.',
      ),
    );
  }
  if (parents.length > MAX_DELEGATION_PARENTS) {
    requestProblems.push(
      problem(
        'too_many_parents',
        '/parents',
        `At most ${MAX_DELEGATION_PARENTS} parents are verified with one contract; ${parents.length} were given.`,
      ),
    );
  }
  const chain = requestProblems.length === 0 ? [value, ...parents] : [value];
  const readings = chain.map((link) => readTypedContract(link));
  const reports = chain.map((link, index) =>
    verifyLink(
      readings[index] as TypedContractReading,
      link,
      index === 0 ? expected : 'authority.delegation',
      parentAt(chain, readings, index + 1),
      ctx,
    ),
  );
  const leaf = reports[0] as Report;
  if (reports.length === 1 && requestProblems.length === 0 && contractPath === '') return leaf;

  const merged = new ReportBuilder(leaf.format);
  absorb(merged, leaf, '', contractPath);
  if (requestProblems.length > 0)
    merged.fail('MALFORMED', 'parents', 'The parents cannot be verified with this contract.', requestProblems);
  reports.slice(1).forEach((report, index) => {
    const link = chain[index + 1];
    const contractId =
      isJsonObject(link) && typeof link['contract_id'] === 'string'
        ? quote(link['contract_id'])
        : 'without a contract_id';
    // Trust is judged only for a signature that verifies (PROTOCOL 1): a failing parent names
    // its key as claimed, never with that key's trust.
    const trust = attributedTrust(report.status, report.trust);
    const keyPhrase =
      trust.status === 'unattributed'
        ? trust.claimed_key_id === undefined
          ? ''
          : `, names key ${trust.claimed_key_id}, which did not sign it (unattributed)`
        : trust.key_id === undefined
          ? ''
          : `, key ${trust.key_id} (trust ${trust.status})`;
    summarize(merged, `parent[${index}]`, report, `Parent ${index} ${contractId}: ${report.status}${keyPhrase}.`);
    absorb(merged, report, `parent[${index}].`, `/parents/${index}`);
  });
  if (reports.length > 1)
    merged.note("Trust is that of the contract's own key; each parent's key and trust are in its parent[i] check.");
  merged.setTrust(leaf.trust);
  return merged.build();
}

function verifyLink(
  reading: TypedContractReading,
  value: JsonValue,
  expected: TypedContractType | undefined,
  parent: DelegationParent | undefined,
  ctx: VerifyContext,
): Report {
  const documentType = reading.ok ? reading.contract.contract_type : reading.contractType;
  const type = expected ?? documentType;
  const planned: string[] = [...TYPED_BASE_CHECKS];
  if (type !== undefined) planned.push(...TYPED_RULE_CHECKS[type]);
  if (type === 'sigr.chain') planned.push(...sigrLinkCheckIds(linkCount(value)));
  const builder = new ReportBuilder(typedFormat(type), planned);

  const problems = reading.ok ? [] : [...reading.problems];
  if (expected !== undefined && isJsonObject(value) && value['contract_type'] !== expected) {
    const claimed = value['contract_type'];
    problems.unshift(
      problem(
        'contract_type_mismatch',
        '/contract_type',
        `Expected a ${expected} contract, got ${typeof claimed === 'string' ? quote(claimed) : describeType(claimed)}.`,
      ),
    );
  }
  if (!reading.ok || problems.length > 0) {
    builder.fail(
      'MALFORMED',
      'schema',
      `The document does not fit the ${type ?? 'typed contract'} r1.0.0 schema.`,
      problems,
    );
    return builder.build();
  }
  const contract = reading.contract;
  builder.pass('schema', `The envelope and the ${contract.contract_type} body fit their r1.0.0 schemas.`);

  if (contract.algorithm === TYPED_ALGORITHM) {
    builder.pass('algorithm', 'The contract is signed with Ed25519.');
    checkRuleD1(builder, ctx, value as JsonObject, contract.key_id);
  } else {
    builder.unsupported(
      'algorithm',
      `The algorithm ${quote(contract.algorithm)} is not supported; typed contracts r1.0.0 use Ed25519.`,
      problem(
        'unsupported_algorithm',
        '/algorithm',
        `Algorithm ${quote(contract.algorithm)} is not supported (only Ed25519).`,
      ),
    );
    builder.unchecked('payload_sha256', 'Not checked: the signature algorithm is not supported.');
    builder.unsupported('signature', `The signature was not executed: ${quote(contract.algorithm)} is not supported.`);
    // Nothing was verified under the key, so no key is vouched for (as for classical and profile
    // receipts with an unsupported algorithm): trust is not_applicable, never the key's trust.
    builder.setTrust({
      status: 'not_applicable',
      key_id: contract.key_id,
      detail: 'No signature was executed, so no key was judged.',
    });
  }

  checkContractRule(builder, contract);
  if (contract.contract_type === 'authority.delegation') {
    checkDelegationParent(builder, contract, parent, ctx.crypto);
    builder.note(
      'The delegation window is not judged against the current time: the report says what was granted, not whether it is in force now.',
    );
  }
  if (contract.contract_type === 'sigr.chain') {
    checkSigrLinks(builder, contract, ctx);
    builder.note(
      "Trust is that of the contract's key_id; each link's signer and its trust are in that link's signature check.",
    );
  }
  return builder.build();
}

function parentAt(
  chain: readonly JsonValue[],
  readings: readonly TypedContractReading[],
  index: number,
): DelegationParent | undefined {
  if (index >= chain.length) return undefined;
  const value = chain[index] as JsonValue;
  const reading = readings[index];
  if (reading?.ok === true && reading.contract.contract_type === 'authority.delegation') {
    return { value, contract: reading.contract };
  }
  return { value };
}

/** Replay a sub-report's checks, errors and notes into a builder, ids and paths prefixed. */
function absorb(builder: ReportBuilder, report: Report, checkPrefix: string, pathPrefix: string): void {
  // The sub-report's status was fixed by its own builder; raising it here first means the
  // replayed checks below (recorded with the weakest status of their kind) cannot change it.
  builder.raise(report.status);
  for (const check of report.checks) {
    const id = `${checkPrefix}${check.id}`;
    const detail = check.detail ?? '';
    if (check.status === 'pass') builder.pass(id, check.detail);
    else if (check.status === 'unchecked') builder.unchecked(id, detail);
    else if (check.status === 'unavailable') builder.unavailable(id, detail);
    else if (check.status === 'unsupported') builder.unsupported(id, detail);
    else builder.fail('INVALID', id, detail);
  }
  const status = report.status;
  if (status !== 'PASS') {
    for (const error of report.errors) builder.error(status, { ...error, path: `${pathPrefix}${error.path}` });
  }
  for (const note of report.notes) builder.note(note);
}

function summarize(builder: ReportBuilder, id: string, report: Report, detail: string): void {
  const status = checkStatusOf(report.status);
  if (status === 'pass') builder.pass(id, detail);
  else if (status === 'unavailable') builder.unavailable(id, detail);
  else if (status === 'unsupported') builder.unsupported(id, detail);
  else builder.raise(report.status).fail('INVALID', id, detail);
}

function requestShapeReport(format: ReportFormat, problems: ReportError[]): Report {
  const builder = new ReportBuilder(format, TYPED_BASE_CHECKS);
  builder.fail('MALFORMED', 'schema', 'The request must be exactly {contract, parents?}.', problems);
  return builder.build();
}

function typedFormat(type: unknown): `typed/${string}` {
  return isTypedContractType(type) ? `typed/${type}` : 'typed/unknown';
}

function linkCount(value: JsonValue): number {
  if (!isJsonObject(value)) return 0;
  const body = value['body'];
  if (!isJsonObject(body)) return 0;
  const links = body['links'];
  return Array.isArray(links) ? links.length : 0;
}

function guarded(type: unknown, run: () => Report): Report {
  try {
    return run();
  } catch (error) {
    // The message only: a stack trace tells a user nothing and may leak paths.
    const reason = error instanceof Error ? error.message : String(error);
    return singleErrorReport(typedFormat(type), 'INDETERMINATE', 'internal', {
      code: 'internal',
      path: '',
      message: `The verifier failed unexpectedly and reached no verdict: ${reason}`,
    });
  }
}

function assertContext(ctx: VerifyContext): void {
  if (typeof ctx !== 'object' || ctx === null) throw new TypeError('A VerifyContext object is required');
  if (typeof ctx.crypto !== 'object' || ctx.crypto === null)
    throw new TypeError('VerifyContext.crypto must be a CryptoProvider');
  for (const name of ['pinned', 'advertised', 'secrets'] as const) {
    if (!Array.isArray(ctx[name])) throw new TypeError(`VerifyContext.${name} must be an array`);
  }
  if (!(ctx.now instanceof Date) || !Number.isFinite(ctx.now.getTime()))
    throw new TypeError('VerifyContext.now must be a valid Date');
}
