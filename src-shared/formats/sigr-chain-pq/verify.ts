/**
 * SiGR chain receipt verification (PROTOCOL section 14): the typed signer's signed agent runs,
 * `envelope.object: "sigr.chain.receipt"`, version 1.0.0-typed-pq, ML-DSA-65 with the public
 * key inline. Byte layout from the producer's src/chain.js (docs/protocol.md section 12a).
 *
 * A document is the producer's sign answer `{ok, product, patent_pending, envelope, timing_us}`
 * or `{envelope}` (its verify request). Each step commits `H(JCS(step without commit_digest,
 * parents sorted))`; a step's `parent_commit_root` is the Merkle root of its parents' commit
 * digests (zero without parents); `causal_root` is the Merkle root of every step's commit
 * digest; the signature is ML-DSA-65 over `payload_digest = H(H(JCS(base)) || causal_root)`,
 * base = `{object, version, sig_scheme, public_key, run_id, agent_ref, step_count, causal_root}`.
 *
 * Decisions:
 * - Shape, checked here by hand: member sets are closed at every level (the producer's are: an
 *   added member would be unsigned text beside signed content), `object` of the envelope and of
 *   each step are constants, `kind` is one of the producer's seven kinds, `seq` an integer in
 *   the 32-bit range the producer writes, 1 to {@link MAX_SIGR_STEPS} steps with distinct
 *   string step_ids (two steps sharing an id make the parent edges ambiguous: MALFORMED, though
 *   the producer signs such a run), every digest lowercase hex of the suite's length, the
 *   signature and key of ML-DSA-65's lengths in standard base64, `issued_at` a TS.
 * - `version` other than 1.0.0-typed-pq, `sig_scheme` other than ml-dsa-65 and a `hash_suite`
 *   other than sha-256 or sha-384 (absent: sha-256; case-insensitive, as the producer reads it)
 *   are UNSUPPORTED.
 * - The chain of bindings is checked link by link, each link against the values as written, so
 *   a report says where it breaks: the graph (every parent is a step of the receipt, no cycle),
 *   per step `step.<i>.parent_commit_root` (the Merkle root of its parents' commit digests) and
 *   `step.<i>.commit_digest` (the step's record), then `step_count`, `causal_root`,
 *   `payload_digest`, and the signature over the stated `payload_digest`. A failing link, a
 *   parent naming no step of the receipt, or a cycle is MISMATCH: the document is well formed
 *   but its bindings disagree (a step dropped, a parent rewritten). All links passing is exactly
 *   the producer's recomputation.
 * - What the signature does not cover is listed as unchecked: the steps' inputs and outputs
 *   (only their digest `io_digest` is in the receipt), `issued_at`, and the QPuF `trust` block.
 *   The order of `steps` and of each step's `parents` is not bound either (both are sorted
 *   before hashing), nor are `patent_pending`, `ok`, `product` or `timing_us`.
 * - Key: the public key is inline and the receipt names no key id. It verifies the signature;
 *   trust is `trusted` only when a pinned ML-DSA-65 entry holds the same bytes, else `unpinned`.
 */
import { MLDSA65_LENGTHS, hexEncode } from '../../crypto';
import type { JsonNode, JsonValue } from '../../json/types';
import type { VerifyContext } from '../../verify/context';
import {
  decodeB64Field,
  decodeHexField,
  describeType,
  isJsonObject,
  memberProblems,
  memberString,
  objectMember,
  problem,
  quote,
} from '../../verify/fields';
import type { FormatInput } from '../../verify/format-module';
import { describeKey, findEmbeddedKey } from '../../verify/keys';
import type { Report, ReportError } from '../../verify/report';
import { ReportBuilder } from '../../verify/report-builder';
import { isTimestamp } from '../../verify/timestamp';
import {
  MAX_SIGR_STEPS,
  SIGR_CHAIN_OBJECT,
  SIGR_CHAIN_SCHEME,
  SIGR_CHAIN_VERSION,
  SIGR_STEP_KINDS,
  SIGR_STEP_OBJECT,
  type SigrBase,
  type SigrStepRecord,
  type SigrSuite,
  payloadDigest,
  sigrMerkleRoot,
  sigrSuite,
  stepCommitDigest,
} from './chain';

/** The 32-bit range of `seq` (the producer writes `seq | 0`). */
const SEQ_MIN = -(2 ** 31);
const SEQ_MAX = 2 ** 31 - 1;

const TOP_OPTIONAL = ['ok', 'product', 'patent_pending', 'timing_us'] as const;
const ENVELOPE_REQUIRED = [
  'object',
  'version',
  'sig_scheme',
  'public_key',
  'run_id',
  'agent_ref',
  'step_count',
  'causal_root',
  'steps',
  'payload_digest',
  'envelope_signature',
  'issued_at',
] as const;
const ENVELOPE_OPTIONAL = ['patent_pending', 'hash_suite', 'trust'] as const;
const STEP_MEMBERS = [
  'object',
  'step_id',
  'kind',
  'seq',
  'parents',
  'io_digest',
  'parent_commit_root',
  'commit_digest',
] as const;

/**
 * The check ids of a sigr-chain-pq report, in report order.
 *
 * @param steps - The number of steps.
 * @returns `schema`, `version`, `sig_scheme`, `hash_suite`, `graph`, per step
 *   `step.<i>.parent_commit_root` and `step.<i>.commit_digest`, `step_count`, `causal_root`,
 *   `payload_digest`, `signature`, then the unchecked `step_io` and `issued_at`.
 * @throws RangeError if `steps` is not a non-negative integer.
 */
export function sigrChainChecks(steps: number): string[] {
  if (!Number.isSafeInteger(steps) || steps < 0) throw new RangeError('The step count must be a non-negative integer');
  const perStep: string[] = [];
  for (let index = 0; index < steps; index += 1) {
    perStep.push(`step.${index}.parent_commit_root`, `step.${index}.commit_digest`);
  }
  return [
    'schema',
    'version',
    'sig_scheme',
    'hash_suite',
    'graph',
    ...perStep,
    'step_count',
    'causal_root',
    'payload_digest',
    'signature',
    'step_io',
    'issued_at',
  ];
}

/**
 * Recognize a SiGR chain receipt: an object whose `envelope.object` is `sigr.chain.receipt`.
 * Nothing else decides (a typed-pq attestation also has an `envelope`).
 *
 * @param node - Any parsed document.
 * @returns `sigr-chain-pq` or undefined.
 */
export function detectSigrChain(node: JsonNode): 'sigr-chain-pq' | undefined {
  return memberString(objectMember(node, 'envelope'), 'object') === SIGR_CHAIN_OBJECT ? 'sigr-chain-pq' : undefined;
}

/** A step, shaped. */
interface Step extends SigrStepRecord {
  commit_digest: string;
}

/** The receipt, shaped and decoded. */
interface Receipt {
  version: string;
  scheme: string;
  suiteName: string | undefined;
  base: SigrBase;
  publicKey: Uint8Array | undefined;
  signature: Uint8Array | undefined;
  payload: string;
  steps: Step[];
  hasTrustBlock: boolean;
}

/**
 * Verify a SiGR chain receipt.
 *
 * @param input - The parsed document and context.
 * @returns The report; format `sigr-chain-pq`.
 */
export function verifySigrChain(input: FormatInput): Report {
  const { value, ctx } = input;
  const builder = new ReportBuilder('sigr-chain-pq', sigrChainChecks(stepCount(value)));
  const problems: ReportError[] = [];
  const receipt = readReceipt(value, problems, ctx);
  if (receipt === undefined || problems.length > 0) {
    builder.fail('MALFORMED', 'schema', 'The document does not fit the SiGR chain receipt shape.', problems);
    return builder.build();
  }
  builder.pass('schema', 'The document fits the SiGR chain receipt shape (sigr.chain.receipt).');

  const supported = checkSupported(builder, receipt);
  const suite = sigrSuite(receipt.suiteName, ctx.crypto);
  if (!supported || suite === undefined) {
    const reason = 'Not checked: the receipt uses a version, scheme or hash suite we do not verify.';
    builder.unsupported('graph', reason);
    receipt.steps.forEach((_, index) => {
      builder.unchecked(`step.${index}.parent_commit_root`, reason);
      builder.unchecked(`step.${index}.commit_digest`, reason);
    });
    for (const id of ['step_count', 'causal_root', 'payload_digest']) builder.unchecked(id, reason);
    // Trust stays not_applicable: no signature was evaluated.
    builder.unsupported(
      'signature',
      'Not executed: the receipt uses a version, scheme or hash suite we do not verify.',
    );
    addUnchecked(builder, receipt);
    return builder.build();
  }

  checkGraph(builder, receipt.steps);
  const byId = new Map(receipt.steps.map((step) => [step.step_id, step]));
  receipt.steps.forEach((step, index) => checkStep(builder, byId, step, index, suite));
  checkCounts(builder, receipt, suite);
  checkSignature(builder, ctx, receipt, suite);
  addUnchecked(builder, receipt);
  return builder.build();
}

/** The number of steps to plan checks for, when the document shows it cheaply. */
function stepCount(value: JsonValue): number {
  const envelope = isJsonObject(value) ? value['envelope'] : undefined;
  const steps = isJsonObject(envelope) ? envelope['steps'] : undefined;
  // A receipt over the limit is MALFORMED; do not plan checks per step for it.
  return Array.isArray(steps) && steps.length <= MAX_SIGR_STEPS ? steps.length : 0;
}

function isHex(text: JsonValue | undefined, length: number | undefined): text is string {
  if (typeof text !== 'string') return false;
  if (length !== undefined) return decodeHexField(text, length) !== undefined;
  return text.length > 0 && text.length % 2 === 0 && decodeHexField(text) !== undefined;
}

/** Shape the document, adding every problem found; undefined when it cannot be read at all. */
function readReceipt(value: JsonValue, problems: ReportError[], ctx: VerifyContext): Receipt | undefined {
  if (!isJsonObject(value)) {
    problems.push(problem('invalid_type', '', `Expected an object, got ${describeType(value)}.`));
    return undefined;
  }
  problems.push(...memberProblems(value, '', ['envelope'], TOP_OPTIONAL));
  if (Object.hasOwn(value, 'ok') && typeof value['ok'] !== 'boolean') {
    problems.push(problem('invalid_type', '/ok', '"ok" must be a boolean.'));
  }
  for (const name of ['product', 'patent_pending'] as const) {
    if (Object.hasOwn(value, name) && typeof value[name] !== 'string') {
      problems.push(problem('invalid_type', `/${name}`, `"${name}" must be a string.`));
    }
  }
  if (Object.hasOwn(value, 'timing_us') && !isJsonObject(value['timing_us'])) {
    problems.push(problem('invalid_type', '/timing_us', '"timing_us" must be an object.'));
  }
  const envelope = value['envelope'];
  if (!isJsonObject(envelope)) {
    problems.push(problem('invalid_type', '/envelope', `"envelope" must be an object, got ${describeType(envelope)}.`));
    return undefined;
  }
  problems.push(...memberProblems(envelope, '/envelope', ENVELOPE_REQUIRED, ENVELOPE_OPTIONAL));
  const text = (name: string, nonEmpty = false): string => {
    const member = envelope[name];
    if (typeof member === 'string' && (!nonEmpty || member !== '')) return member;
    if (member !== undefined) {
      problems.push(
        problem('invalid_type', `/envelope/${name}`, `"${name}" must be a ${nonEmpty ? 'non-empty ' : ''}string.`),
      );
    }
    return '';
  };
  if (envelope['object'] !== SIGR_CHAIN_OBJECT) {
    problems.push(problem('invalid_value', '/envelope/object', `"object" must be "${SIGR_CHAIN_OBJECT}".`));
  }
  const version = text('version');
  const scheme = text('sig_scheme');
  const runId = text('run_id', true);
  const agentRef = text('agent_ref');
  const publicKeyText = text('public_key');
  const suiteName = Object.hasOwn(envelope, 'hash_suite') ? text('hash_suite') : undefined;
  if (Object.hasOwn(envelope, 'patent_pending')) text('patent_pending');
  const hasTrustBlock = Object.hasOwn(envelope, 'trust');
  if (hasTrustBlock && !isJsonObject(envelope['trust'])) {
    problems.push(problem('invalid_type', '/envelope/trust', '"trust" must be an object.'));
  }
  if (Object.hasOwn(envelope, 'issued_at') && !isTimestamp(envelope['issued_at'])) {
    problems.push(problem('invalid_timestamp', '/envelope/issued_at', '"issued_at" must be a TS (RFC 3339, UTC, Z).'));
  }
  const stepCountValue = envelope['step_count'];
  if (
    stepCountValue !== undefined &&
    !(typeof stepCountValue === 'number' && Number.isSafeInteger(stepCountValue) && stepCountValue >= 0)
  ) {
    problems.push(problem('invalid_type', '/envelope/step_count', '"step_count" must be a non-negative integer.'));
  }

  // Lengths depend on the suite and scheme; for ones we do not execute only the encoding is checked.
  const suite = sigrSuite(suiteName, ctx.crypto);
  const digestLength = suite?.length;
  const hexProblem = (path: string, name: string): ReportError =>
    problem(
      'invalid_digest',
      path,
      digestLength === undefined
        ? `"${name}" must be lowercase hex.`
        : `"${name}" must be ${digestLength * 2} lowercase hex characters (a ${suite?.name} digest).`,
    );
  for (const name of ['causal_root', 'payload_digest'] as const) {
    if (Object.hasOwn(envelope, name) && !isHex(envelope[name], digestLength)) {
      problems.push(hexProblem(`/envelope/${name}`, name));
    }
  }
  const known = scheme === SIGR_CHAIN_SCHEME;
  let publicKey: Uint8Array | undefined;
  if (Object.hasOwn(envelope, 'public_key')) {
    publicKey = decodeB64Field(publicKeyText, known ? MLDSA65_LENGTHS.publicKey : undefined);
    if (publicKey === undefined) {
      problems.push(
        problem(
          'invalid_public_key',
          '/envelope/public_key',
          known
            ? '"public_key" must be an ML-DSA-65 public key: 1952 bytes in standard base64.'
            : '"public_key" must be standard base64.',
        ),
      );
    }
  }
  let signature: Uint8Array | undefined;
  if (Object.hasOwn(envelope, 'envelope_signature')) {
    signature = decodeB64Field(envelope['envelope_signature'], known ? MLDSA65_LENGTHS.signature : undefined);
    if (signature === undefined) {
      problems.push(
        problem(
          'invalid_signature_encoding',
          '/envelope/envelope_signature',
          known
            ? '"envelope_signature" must be an ML-DSA-65 signature: 3309 bytes as 4412 characters of standard base64.'
            : '"envelope_signature" must be standard base64.',
        ),
      );
    }
  }
  const steps = readSteps(envelope['steps'], problems, digestLength, hexProblem);
  if (problems.length > 0 || steps === undefined) return undefined;
  return {
    version,
    scheme,
    suiteName,
    base: {
      object: SIGR_CHAIN_OBJECT,
      version,
      sig_scheme: scheme,
      public_key: publicKeyText,
      run_id: runId,
      agent_ref: agentRef,
      step_count: stepCountValue as number,
      causal_root: envelope['causal_root'] as string,
    },
    publicKey,
    signature,
    payload: envelope['payload_digest'] as string,
    steps,
    hasTrustBlock,
  };
}

function readSteps(
  value: JsonValue | undefined,
  problems: ReportError[],
  digestLength: number | undefined,
  hexProblem: (path: string, name: string) => ReportError,
): Step[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SIGR_STEPS) {
    problems.push(
      problem('invalid_steps', '/envelope/steps', `"steps" must be an array of 1 to ${MAX_SIGR_STEPS} steps.`),
    );
    return undefined;
  }
  const steps: Step[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry, index) => {
    const path = `/envelope/steps/${index}`;
    if (!isJsonObject(entry)) {
      problems.push(problem('invalid_type', path, `Step ${index} must be an object, got ${describeType(entry)}.`));
      return;
    }
    const before = problems.length;
    problems.push(...memberProblems(entry, path, STEP_MEMBERS));
    if (entry['object'] !== SIGR_STEP_OBJECT) {
      problems.push(problem('invalid_value', `${path}/object`, `"object" must be "${SIGR_STEP_OBJECT}".`));
    }
    const stepId = entry['step_id'];
    if (typeof stepId !== 'string' || stepId === '') {
      problems.push(problem('invalid_type', `${path}/step_id`, '"step_id" must be a non-empty string.'));
    } else if (seen.has(stepId)) {
      problems.push(
        problem(
          'duplicate_step_id',
          `${path}/step_id`,
          `Steps ${seen.get(stepId)} and ${index} share the step_id ${quote(stepId)}; parents would be ambiguous.`,
        ),
      );
    } else seen.set(stepId, index);
    const kind = entry['kind'];
    if (typeof kind !== 'string' || !SIGR_STEP_KINDS.includes(kind)) {
      problems.push(problem('invalid_value', `${path}/kind`, `"kind" must be one of ${SIGR_STEP_KINDS.join(', ')}.`));
    }
    const seq = entry['seq'];
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < SEQ_MIN || seq > SEQ_MAX) {
      problems.push(problem('invalid_type', `${path}/seq`, '"seq" must be an integer from -2^31 to 2^31 - 1.'));
    }
    const parents = entry['parents'];
    if (
      !Array.isArray(parents) ||
      parents.length > MAX_SIGR_STEPS ||
      parents.some((parent) => typeof parent !== 'string' || parent === '')
    ) {
      problems.push(
        problem(
          'invalid_parents',
          `${path}/parents`,
          `"parents" must be an array of at most ${MAX_SIGR_STEPS} non-empty step_id strings.`,
        ),
      );
    }
    for (const name of ['io_digest', 'parent_commit_root', 'commit_digest'] as const) {
      if (Object.hasOwn(entry, name) && !isHex(entry[name], digestLength)) {
        problems.push(hexProblem(`${path}/${name}`, name));
      }
    }
    if (problems.length > before) return;
    steps.push({
      object: SIGR_STEP_OBJECT,
      step_id: stepId as string,
      kind: kind as string,
      seq: seq as number,
      parents: parents as string[],
      io_digest: entry['io_digest'] as string,
      parent_commit_root: entry['parent_commit_root'] as string,
      commit_digest: entry['commit_digest'] as string,
    });
  });
  return steps.length === value.length ? steps : undefined;
}

function checkSupported(builder: ReportBuilder, receipt: Receipt): boolean {
  let supported = true;
  if (receipt.version === SIGR_CHAIN_VERSION) builder.pass('version', `version is ${SIGR_CHAIN_VERSION}.`);
  else {
    supported = false;
    builder.unsupported(
      'version',
      `version ${quote(receipt.version)} is not supported; only ${SIGR_CHAIN_VERSION} is verified.`,
      problem('unsupported_version', '/envelope/version', `Unsupported version ${quote(receipt.version)}.`),
    );
  }
  if (receipt.scheme === SIGR_CHAIN_SCHEME) {
    builder.pass('sig_scheme', 'sig_scheme is ml-dsa-65 (FIPS 204, pure, empty context).');
  } else {
    supported = false;
    builder.unsupported(
      'sig_scheme',
      `sig_scheme ${quote(receipt.scheme)} is not supported; only ml-dsa-65 is verified.`,
      problem('unsupported_scheme', '/envelope/sig_scheme', `Unsupported sig_scheme ${quote(receipt.scheme)}.`),
    );
  }
  const name = receipt.suiteName;
  const lower = (name ?? 'sha-256').toLowerCase();
  if (lower === 'sha-256' || lower === 'sha-384') {
    builder.pass(
      'hash_suite',
      name === undefined ? 'hash_suite is absent: SHA-256.' : `hash_suite is ${quote(name)}: ${lower.toUpperCase()}.`,
    );
  } else {
    supported = false;
    builder.unsupported(
      'hash_suite',
      `hash_suite ${quote(name ?? '')} is not supported; only sha-256 and sha-384 are verified.`,
      problem('unsupported_hash_suite', '/envelope/hash_suite', `Unsupported hash_suite ${quote(name ?? '')}.`),
    );
  }
  return supported;
}

/** Every parent names a step of the receipt, and following parents never comes back to a step. */
function checkGraph(builder: ReportBuilder, steps: readonly Step[]): void {
  const indexById = new Map(steps.map((step, index) => [step.step_id, index]));
  const errors: ReportError[] = [];
  steps.forEach((step, index) => {
    step.parents.forEach((parent, position) => {
      if (!indexById.has(parent)) {
        errors.push(
          problem(
            'chain_parent_unknown',
            `/envelope/steps/${index}/parents/${position}`,
            `Step ${quote(step.step_id)} names the parent ${quote(parent)}, which is not a step of this receipt.`,
          ),
        );
      }
    });
  });
  const cycle = findCycle(steps, indexById);
  if (cycle !== undefined) {
    errors.push(
      problem(
        'chain_cycle',
        `/envelope/steps/${cycle[0] as number}/parents`,
        `The steps' parents form a cycle: ${cycle.map((index) => quote((steps[index] as Step).step_id)).join(' → ')}.`,
      ),
    );
  }
  if (errors.length === 0) {
    builder.pass('graph', `The ${steps.length} steps form a DAG: every parent is a step of the receipt, no cycle.`);
  } else {
    builder.fail(
      'MISMATCH',
      'graph',
      'The steps do not form the DAG the receipt was sealed over: a parent is missing or the parents form a cycle.',
      errors,
    );
  }
}

/** A cycle through parent edges, as step indexes from a step back to itself; undefined when none. */
function findCycle(steps: readonly Step[], indexById: ReadonlyMap<string, number>): number[] | undefined {
  // Iterative depth-first search (no recursion: a receipt may hold a chain 1024 steps deep).
  const state = new Uint8Array(steps.length); // 0 new, 1 on the path, 2 done
  for (let start = 0; start < steps.length; start += 1) {
    if (state[start] !== 0) continue;
    const path: number[] = [start];
    const next: number[] = [0];
    state[start] = 1;
    while (path.length > 0) {
      const top = path[path.length - 1] as number;
      const parents = (steps[top] as Step).parents;
      const position = next[next.length - 1] as number;
      if (position >= parents.length) {
        state[top] = 2;
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = position + 1;
      const parent = indexById.get(parents[position] as string);
      if (parent === undefined || state[parent] === 2) continue;
      if (state[parent] === 1) return [...path.slice(path.indexOf(parent)), parent];
      state[parent] = 1;
      path.push(parent);
      next.push(0);
    }
  }
  return undefined;
}

function checkStep(
  builder: ReportBuilder,
  byId: ReadonlyMap<string, Step>,
  step: Step,
  index: number,
  suite: SigrSuite,
): void {
  const path = `/envelope/steps/${index}`;
  const rootId = `step.${index}.parent_commit_root`;
  const parentCommits: string[] = [];
  const missing: string[] = [];
  for (const parent of step.parents) {
    const found = byId.get(parent);
    if (found === undefined) missing.push(parent);
    else parentCommits.push(found.commit_digest);
  }
  if (missing.length > 0) {
    builder.fail(
      'MISMATCH',
      rootId,
      `Step ${quote(step.step_id)}'s parent_commit_root cannot be recomputed: its parent ${quote(missing[0] as string)} is not in the receipt.`,
    );
  } else {
    const expected = sigrMerkleRoot(parentCommits, suite);
    if (expected === step.parent_commit_root) {
      builder.pass(
        rootId,
        step.parents.length === 0
          ? `Step ${quote(step.step_id)} has no parents; parent_commit_root is the zero digest.`
          : `Step ${quote(step.step_id)}'s parent_commit_root is the Merkle root of its parents' commit digests.`,
      );
    } else {
      builder.fail(
        'MISMATCH',
        rootId,
        `Step ${quote(step.step_id)}'s parent_commit_root differs from the Merkle root of its parents' commit digests: a parent or the edge was changed.`,
        problem(
          'parent_commit_root_mismatch',
          `${path}/parent_commit_root`,
          `The parents' commit digests give ${expected}, not parent_commit_root.`,
        ),
      );
    }
  }
  const commitId = `step.${index}.commit_digest`;
  const commit = stepCommitDigest(step, suite);
  if (commit === step.commit_digest) {
    builder.pass(commitId, `Step ${quote(step.step_id)}'s commit_digest is ${suite.name} of its committed record.`);
  } else {
    builder.fail(
      'MISMATCH',
      commitId,
      `Step ${quote(step.step_id)}'s commit_digest differs from ${suite.name} of its record: the step was changed.`,
      problem('commit_digest_mismatch', `${path}/commit_digest`, `The step's record hashes to ${commit}.`),
    );
  }
}

function checkCounts(builder: ReportBuilder, receipt: Receipt, suite: SigrSuite): void {
  const { base, steps } = receipt;
  if (base.step_count === steps.length) builder.pass('step_count', `step_count is ${steps.length}, the steps present.`);
  else {
    builder.fail(
      'MISMATCH',
      'step_count',
      `step_count says ${base.step_count} steps; the receipt holds ${steps.length}: a step was added or removed.`,
      problem('step_count_mismatch', '/envelope/step_count', `${steps.length} steps, not ${base.step_count}.`),
    );
  }
  const root = sigrMerkleRoot(
    steps.map((step) => step.commit_digest),
    suite,
  );
  if (root === base.causal_root) {
    builder.pass('causal_root', "causal_root is the Merkle root of the steps' commit digests.");
  } else {
    builder.fail(
      'MISMATCH',
      'causal_root',
      "causal_root differs from the Merkle root of the steps' commit digests: a step or the root was changed.",
      problem('causal_root_mismatch', '/envelope/causal_root', `The steps' commit digests give ${root}.`),
    );
  }
  const payload = hexEncode(payloadDigest(base, suite));
  if (payload === receipt.payload) {
    builder.pass('payload_digest', 'payload_digest is H(H(JCS(base)) ‖ causal_root).');
  } else {
    builder.fail(
      'MISMATCH',
      'payload_digest',
      'payload_digest differs from H(H(JCS(base)) ‖ causal_root): a base member (run_id, agent_ref, step_count, public_key, causal_root, ...) or the digest was changed.',
      problem('payload_digest_mismatch', '/envelope/payload_digest', `The base members give ${payload}.`),
    );
  }
}

function checkSignature(builder: ReportBuilder, ctx: VerifyContext, receipt: Receipt, suite: SigrSuite): void {
  const key = findEmbeddedKey(receipt.publicKey as Uint8Array, 'ML-DSA-65', ctx);
  builder.setTrust(key.trust);
  const message = decodeHexField(receipt.payload, suite.length) as Uint8Array;
  if (ctx.crypto.mldsa65Verify(receipt.signature as Uint8Array, message, key.public_key)) {
    builder.passSigned(
      'signature',
      (outcome) =>
        `The ML-DSA-65 signature over the ${suite.length} payload_digest bytes verifies under ${describeKey(key, outcome)}.`,
    );
  } else {
    builder.fail(
      'INVALID',
      'signature',
      `The ML-DSA-65 signature over the ${suite.length} payload_digest bytes does not verify under ${describeKey(key, 'not_signed')}.`,
      problem(
        'signature_invalid',
        '/envelope/envelope_signature',
        'The signature does not verify over payload_digest.',
      ),
    );
  }
}

function addUnchecked(builder: ReportBuilder, receipt: Receipt): void {
  builder.unchecked(
    'step_io',
    "The steps' inputs and outputs are not in the receipt: each io_digest is bound as written, what it digests is not checked.",
  );
  builder.unchecked('issued_at', 'issued_at is not signed: nothing binds it.');
  if (receipt.hasTrustBlock) {
    builder.unchecked('trust_block', 'The envelope\'s "trust" block (QPuF) is not signed and is not checked.');
  }
  builder.note("The order of steps and of each step's parents is not signed (both are sorted before hashing).");
}
