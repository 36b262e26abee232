/**
 * SiGR chain receipt signer: seals an agent run as the typed signer does (PROTOCOL section 14),
 * with ML-DSA-65, for `evroom sign sigr-chain`, the samples and the tests.
 */
import { MLDSA65_LENGTHS, assertBytes, b64Encode, hexEncode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import type { JsonObject } from '../../verify/fields';
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
  payloadDigest,
  sigrMerkleRoot,
  sigrSuite,
  stepCommitDigest,
} from './chain';

/** One step of a run to seal. */
export interface SigrRunStep {
  step_id: string;
  /** One of {@link SIGR_STEP_KINDS}. */
  kind: string;
  /** An integer from -2^31 to 2^31 - 1. */
  seq: number;
  /** The step_ids of its parents: steps of the same run. */
  parents: readonly string[];
  /** `H(JCS({input_digest, output_digest}))` of the step (see `ioDigest`). */
  io_digest: string;
}

/** A run to seal. */
export interface SigrRun {
  run_id: string;
  agent_ref: string;
  steps: readonly SigrRunStep[];
}

/** Options for {@link signSigrChain}. */
export interface SigrSignOptions {
  /** `sha-256` (default; `hash_suite` is then not written) or `sha-384`. */
  hashSuite?: 'sha-256' | 'sha-384';
  /** The issuing instant (a TS). */
  issuedAt: string;
}

/**
 * Seal a run: each step's commit in an order where parents come first, the causal root, and
 * one ML-DSA-65 signature (FIPS 204, pure, empty context, hedged) over the payload digest,
 * checked under `publicKey` before returning.
 *
 * @param run - The run; steps are written in the order given.
 * @param mldsaSecretKey - The 4032-byte ML-DSA-65 secret key.
 * @param publicKey - Its 1952-byte public key, written inline.
 * @param crypto - The crypto provider.
 * @param options - The hash suite and the issuing instant.
 * @returns `{envelope}`.
 * @throws TypeError if an argument has the wrong type.
 * @throws RangeError for a run that is not a DAG of 1 to 1024 steps with distinct ids, a bad
 *   kind, seq or digest, a bad instant, or a public key that does not verify the signature.
 */
export function signSigrChain(
  run: SigrRun,
  mldsaSecretKey: Uint8Array,
  publicKey: Uint8Array,
  crypto: CryptoProvider,
  options: SigrSignOptions,
): JsonObject {
  if (typeof run !== 'object' || run === null || !Array.isArray(run.steps)) {
    throw new TypeError('signSigrChain needs a run with steps');
  }
  if (typeof run.run_id !== 'string' || run.run_id === '') throw new TypeError('run_id must be a non-empty string');
  if (typeof run.agent_ref !== 'string') throw new TypeError('agent_ref must be a string');
  assertBytes(mldsaSecretKey, 'signSigrChain: mldsaSecretKey');
  assertBytes(publicKey, 'signSigrChain: publicKey', MLDSA65_LENGTHS.publicKey);
  if (!isTimestamp(options.issuedAt)) throw new RangeError('issuedAt must be a TS');
  const suite = sigrSuite(options.hashSuite ?? 'sha-256', crypto);
  if (suite === undefined) throw new RangeError(`Unknown hash suite ${String(options.hashSuite)}`);
  const steps = run.steps;
  if (steps.length === 0 || steps.length > MAX_SIGR_STEPS) {
    throw new RangeError(`A run has 1 to ${MAX_SIGR_STEPS} steps, got ${steps.length}`);
  }
  const byId = new Map<string, SigrRunStep>();
  for (const step of steps) {
    if (typeof step.step_id !== 'string' || step.step_id === '')
      throw new TypeError('step_id must be a non-empty string');
    if (byId.has(step.step_id)) throw new RangeError(`Two steps share the step_id ${JSON.stringify(step.step_id)}`);
    if (!SIGR_STEP_KINDS.includes(step.kind)) throw new RangeError(`Unknown step kind ${JSON.stringify(step.kind)}`);
    if (!Number.isInteger(step.seq) || step.seq < -(2 ** 31) || step.seq > 2 ** 31 - 1) {
      throw new RangeError('seq must be a 32-bit integer');
    }
    if (!Array.isArray(step.parents) || step.parents.some((parent: unknown) => typeof parent !== 'string')) {
      throw new TypeError('parents must be an array of step_ids');
    }
    if (typeof step.io_digest !== 'string' || !new RegExp(`^[0-9a-f]{${suite.length * 2}}$`).test(step.io_digest)) {
      throw new RangeError(`io_digest must be ${suite.length * 2} lowercase hex characters`);
    }
    byId.set(step.step_id, step);
  }
  for (const step of steps) {
    for (const parent of step.parents) {
      if (!byId.has(parent)) throw new RangeError(`Step ${JSON.stringify(step.step_id)} names an unknown parent`);
    }
  }

  // Commit parents before children; a step met again while its parents are pending is a cycle.
  const commits = new Map<string, string>();
  const records = new Map<string, SigrStepRecord>();
  const pending = new Set<string>();
  const seal = (start: SigrRunStep): void => {
    const stack: SigrRunStep[] = [start];
    while (stack.length > 0) {
      const step = stack[stack.length - 1] as SigrRunStep;
      if (commits.has(step.step_id)) {
        stack.pop();
        continue;
      }
      pending.add(step.step_id);
      const waiting = step.parents.filter((parent) => !commits.has(parent));
      if (waiting.length > 0) {
        for (const parent of waiting) {
          if (pending.has(parent)) throw new RangeError("The steps' parents form a cycle");
          stack.push(byId.get(parent) as SigrRunStep);
        }
        continue;
      }
      const record: SigrStepRecord = {
        object: SIGR_STEP_OBJECT,
        step_id: step.step_id,
        kind: step.kind,
        seq: step.seq,
        parents: [...step.parents].sort(),
        io_digest: step.io_digest,
        parent_commit_root: sigrMerkleRoot(
          step.parents.map((parent) => commits.get(parent) as string),
          suite,
        ),
      };
      records.set(step.step_id, record);
      commits.set(step.step_id, stepCommitDigest(record, suite));
      pending.delete(step.step_id);
      stack.pop();
    }
  };
  for (const step of steps) seal(step);

  const sealed = steps.map((step) => ({
    ...(records.get(step.step_id) as SigrStepRecord),
    parents: [...step.parents].sort(),
    commit_digest: commits.get(step.step_id) as string,
  }));
  const base: SigrBase = {
    object: SIGR_CHAIN_OBJECT,
    version: SIGR_CHAIN_VERSION,
    sig_scheme: SIGR_CHAIN_SCHEME,
    public_key: b64Encode(publicKey),
    run_id: run.run_id,
    agent_ref: run.agent_ref,
    step_count: steps.length,
    causal_root: sigrMerkleRoot(
      sealed.map((step) => step.commit_digest),
      suite,
    ),
  };
  const payload = payloadDigest(base, suite);
  const signature = crypto.mldsa65Sign(payload, mldsaSecretKey);
  if (!crypto.mldsa65Verify(signature, payload, publicKey)) {
    throw new RangeError('signSigrChain: the public key does not verify signatures made with this secret key');
  }
  const envelope: JsonObject = {
    ...base,
    steps: sealed.map((step) => ({ ...step, parents: [...step.parents] })),
    payload_digest: hexEncode(payload),
    envelope_signature: b64Encode(signature),
    issued_at: options.issuedAt,
  };
  if (suite.name !== 'sha-256') envelope['hash_suite'] = suite.name;
  return { envelope };
}
