/**
 * Issuing a SiGR chain receipt from caller fields (`evroom sign sigr-chain`).
 */
import { hexEncode, utf8Encode } from '../../crypto';
import { jcs, pointerAppend } from '../../json';
import type { JsonValue } from '../../json/types';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import type { FormatIssuer, IssueInput, IssuedDocument } from '../../verify/format-module';
import { IssueInputError } from '../../verify/issue-error';
import { checkMembers, fieldsObject, issuerKey, publicEntry, withMldsa65SecretKey } from '../../verify/issue-fields';
import { formatJsonDocument } from '../../verify/json-document';
import { MAX_SIGR_STEPS, SIGR_STEP_KINDS, ioDigest, sigrSuite, type SigrSuite } from './chain';
import { signSigrChain, type SigrRunStep } from './sign';

/**
 * Seal the caller's agent run with an ML-DSA-65 key, its public key inline.
 *
 * Fields: `{run_id, agent_ref?, hash_suite?, steps: [{step_id, kind, seq, parents, input?,
 * output?, input_digest?, output_digest?}]}`. A step's input digest is `input_digest` when given
 * (hex of the suite's length), else `H(JCS(input))` (`input` absent: JSON null), likewise the
 * output; `io_digest = H(JCS({input_digest, output_digest}))`. `agent_ref` absent is
 * `unspecified`, as the producer writes it.
 *
 * @param input - The fields and the ML-DSA-65 key (its seed).
 * @returns `{envelope}` and the key that verifies it.
 * @throws IssueInputError for fields it refuses (`unknown_member`, `missing_member`,
 *   `invalid_value`, `invalid_run`).
 */
export function issueSigrChain(input: IssueInput): IssuedDocument {
  const { key } = issuerKey(input);
  const fields = fieldsObject(input);
  checkMembers(fields, ['run_id', 'steps'], ['agent_ref', 'hash_suite'], input.name);
  const runId = fields['run_id'];
  if (typeof runId !== 'string' || runId === '') {
    throw new IssueInputError('invalid_value', '/run_id', 'must be a non-empty string');
  }
  const agentRef = fields['agent_ref'] ?? 'unspecified';
  if (typeof agentRef !== 'string') throw new IssueInputError('invalid_value', '/agent_ref', 'must be a string');
  const suiteName = fields['hash_suite'] ?? 'sha-256';
  const suite = suiteName === 'sha-256' || suiteName === 'sha-384' ? sigrSuite(suiteName, input.crypto) : undefined;
  if (suite === undefined) {
    throw new IssueInputError('invalid_value', '/hash_suite', 'must be "sha-256" or "sha-384"');
  }
  const steps = fields['steps'];
  if (!Array.isArray(steps) || steps.length === 0 || steps.length > MAX_SIGR_STEPS) {
    throw new IssueInputError('invalid_value', '/steps', `must be an array of 1 to ${MAX_SIGR_STEPS} steps`);
  }
  const runSteps = steps.map((step, index) => runStep(step, pointerAppend('/steps', String(index)), suite));
  const issuedAt = input.issuedAt ?? input.now.toISOString();
  const document = withMldsa65SecretKey(input, key, (secretKey) => {
    try {
      return signSigrChain(
        { run_id: runId, agent_ref: agentRef, steps: runSteps },
        secretKey,
        key.public_key,
        input.crypto,
        { hashSuite: suite.name, issuedAt },
      );
    } catch (error) {
      if (error instanceof RangeError) throw new IssueInputError('invalid_run', '/steps', error.message);
      throw error;
    }
  });
  return { text: formatJsonDocument(document), keys: [publicEntry(key)], secrets: [] };
}

function runStep(step: JsonValue, path: string, suite: SigrSuite): SigrRunStep {
  if (!isJsonObject(step)) throw new IssueInputError('invalid_value', path, 'a step must be an object');
  const known = ['step_id', 'kind', 'seq', 'parents', 'input', 'output', 'input_digest', 'output_digest'];
  for (const name of Object.keys(step)) {
    if (!known.includes(name)) {
      throw new IssueInputError(
        'unknown_member',
        pointerAppend(path, name),
        `unknown member; a step takes ${known.join(', ')}`,
      );
    }
  }
  const stepId = step['step_id'];
  if (typeof stepId !== 'string' || stepId === '') {
    throw new IssueInputError('invalid_value', `${path}/step_id`, 'must be a non-empty string');
  }
  const kind = step['kind'];
  if (typeof kind !== 'string' || !SIGR_STEP_KINDS.includes(kind)) {
    throw new IssueInputError('invalid_value', `${path}/kind`, `must be one of ${SIGR_STEP_KINDS.join(', ')}`);
  }
  const seq = step['seq'] ?? 0;
  if (typeof seq !== 'number' || !Number.isInteger(seq) || seq < -(2 ** 31) || seq > 2 ** 31 - 1) {
    throw new IssueInputError('invalid_value', `${path}/seq`, 'must be a 32-bit integer');
  }
  const parents = step['parents'] ?? [];
  if (!Array.isArray(parents) || parents.some((parent) => typeof parent !== 'string' || parent === '')) {
    throw new IssueInputError('invalid_value', `${path}/parents`, 'must be an array of step_ids');
  }
  return {
    step_id: stepId,
    kind,
    seq,
    parents: parents as string[],
    io_digest: ioDigest(digestOf(step, 'input', path, suite), digestOf(step, 'output', path, suite), suite),
  };
}

function digestOf(step: JsonObject, name: 'input' | 'output', path: string, suite: SigrSuite): string {
  const given = step[`${name}_digest`];
  if (given !== undefined) {
    if (Object.hasOwn(step, name)) {
      throw new IssueInputError('invalid_value', `${path}/${name}_digest`, `give ${name} or ${name}_digest, not both`);
    }
    if (typeof given !== 'string' || !new RegExp(`^[0-9a-f]{${suite.length * 2}}$`).test(given)) {
      throw new IssueInputError(
        'invalid_value',
        `${path}/${name}_digest`,
        `must be ${suite.length * 2} lowercase hex characters`,
      );
    }
    return given;
  }
  return hexEncode(suite.hash(utf8Encode(jcs(step[name] ?? null))));
}

/** `evroom sign sigr-chain`. */
export const sigrChainIssuer: FormatIssuer = {
  name: 'sigr-chain',
  help: [
    '{run_id, agent_ref?, hash_suite?, steps: [{step_id, kind, seq, parents, input?, output?}]}; the key must be ML-DSA-65',
    'Seals an agent run as a SiGR chain receipt (sigr-chain-pq): the public key is written inline, no key id.',
    'A step may give input_digest/output_digest (hex) instead of input/output; hash_suite is sha-256 or sha-384.',
  ],
  keyAlgorithm: 'ML-DSA-65',
  keyId: false,
  roles: [],
  secret: false,
  issuedAt: true,
  exactNumbers: true,
  wraps: false,
  issue: issueSigrChain,
};
