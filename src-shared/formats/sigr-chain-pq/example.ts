/**
 * The SiGR chain run of the documentation's worked example and the samples: a plan, two parallel
 * tool calls, their merge and a final answer (fan-out and fan-in), as the producer's own tests
 * model an agent run.
 */
import { hexEncode, utf8Encode } from '../../crypto';
import type { CryptoProvider } from '../../crypto/provider';
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import type { JsonObject } from '../../verify/fields';
import {
  baseCanonical,
  committedRecord,
  ioDigest,
  sigrSuite,
  type SigrBase,
  type SigrStepRecord,
  type SigrSuite,
} from './chain';
import { signSigrChain, type SigrRun } from './sign';

/** The example run's steps with their inputs and outputs (only their digests are sealed). */
export const SIGR_EXAMPLE_STEPS: readonly {
  step_id: string;
  kind: string;
  seq: number;
  parents: readonly string[];
  input: JsonValue;
  output: JsonValue;
}[] = [
  { step_id: 's1', kind: 'plan', seq: 0, parents: [], input: { goal: 'compare' }, output: { plan: ['a', 'b'] } },
  { step_id: 's2', kind: 'tool_call', seq: 1, parents: ['s1'], input: { q: 'a' }, output: { r: 'A' } },
  { step_id: 's3', kind: 'tool_call', seq: 1, parents: ['s1'], input: { q: 'b' }, output: { r: 'B' } },
  { step_id: 's4', kind: 'merge', seq: 2, parents: ['s2', 's3'], input: { merge: ['A', 'B'] }, output: { m: 'AB' } },
  { step_id: 's5', kind: 'final', seq: 3, parents: ['s4'], input: { m: 'AB' }, output: { answer: 'done' } },
];

/** The example run's id and agent. */
export const SIGR_EXAMPLE_RUN_ID = 'run-example-1';
export const SIGR_EXAMPLE_AGENT_REF = 'research-agent-v2';

/**
 * The example run, each step's io_digest computed as the producer does:
 * `H(JCS({input_digest: H(JCS(input)), output_digest: H(JCS(output))}))`.
 *
 * @param suite - The hash suite.
 * @returns The run to seal.
 */
export function sigrChainExampleRun(suite: SigrSuite): SigrRun {
  const digest = (value: JsonValue): string => hexEncode(suite.hash(utf8Encode(jcs(value))));
  return {
    run_id: SIGR_EXAMPLE_RUN_ID,
    agent_ref: SIGR_EXAMPLE_AGENT_REF,
    steps: SIGR_EXAMPLE_STEPS.map((step) => ({
      step_id: step.step_id,
      kind: step.kind,
      seq: step.seq,
      parents: [...step.parents],
      io_digest: ioDigest(digest(step.input), digest(step.output), suite),
    })),
  };
}

/** The documentation's worked example: the example run sealed, and the values a reader recomputes. */
export interface SigrChainWorkedExample {
  /** `{envelope}` (the signature is hedged, so it differs each time; nothing quoted depends on it). */
  document: JsonObject;
  /** JCS of step s4's committed record (the merge: two parents). */
  mergeRecord: string;
  /** Each step's commit_digest, by step_id. */
  commits: Record<string, string>;
  /** Step s4's parent_commit_root. */
  mergeParentRoot: string;
  causalRoot: string;
  /** SHA-256(JCS(base)). */
  baseDigest: string;
  payloadDigest: string;
}

/** The seed byte of the worked example's ML-DSA-65 key. */
export const SIGR_EXAMPLE_SEED_BYTE = 0x52;
/** The worked example's issuing instant. */
export const SIGR_EXAMPLE_ISSUED_AT = '2026-06-01T12:00:00.000Z';

/**
 * The worked example of docs/protocol.md section 12a: the example run sealed with SHA-256 under
 * the ML-DSA-65 key of seed 32 × 0x52.
 *
 * @param crypto - The crypto provider.
 * @returns The receipt and its recomputable values.
 */
export function sigrChainWorkedExample(crypto: CryptoProvider): SigrChainWorkedExample {
  const suite = sigrSuite('sha-256', crypto);
  if (suite === undefined) throw new Error('SHA-256 is always a SiGR suite');
  const key = crypto.mldsa65KeyGen(new Uint8Array(32).fill(SIGR_EXAMPLE_SEED_BYTE));
  const document = signSigrChain(sigrChainExampleRun(suite), key.secretKey, key.publicKey, crypto, {
    issuedAt: SIGR_EXAMPLE_ISSUED_AT,
  });
  key.secretKey.fill(0);
  const envelope = document['envelope'] as JsonObject;
  const steps = envelope['steps'] as unknown as (SigrStepRecord & { commit_digest: string })[];
  const merge = steps.find((step) => step.step_id === 's4') as SigrStepRecord;
  return {
    document,
    mergeRecord: jcs(committedRecord(merge)),
    commits: Object.fromEntries(steps.map((step) => [step.step_id, step.commit_digest])),
    mergeParentRoot: merge.parent_commit_root,
    causalRoot: envelope['causal_root'] as string,
    baseDigest: hexEncode(suite.hash(utf8Encode(baseCanonical(envelope as unknown as SigrBase)))),
    payloadDigest: envelope['payload_digest'] as string,
  };
}
