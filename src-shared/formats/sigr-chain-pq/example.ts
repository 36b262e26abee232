/**
 * The SiGR chain run of the documentation's worked example and the samples: a plan, two parallel
 * tool calls, their merge and a final answer (fan-out and fan-in), as the producer's own tests
 * model an agent run.
 */
import { utf8Encode, hexEncode } from '../../crypto';
import { jcs } from '../../json';
import type { JsonValue } from '../../json/types';
import { ioDigest, type SigrSuite } from './chain';
import type { SigrRun } from './sign';

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
