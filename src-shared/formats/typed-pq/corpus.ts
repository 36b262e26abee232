/**
 * The typed-pq corpus made by the real producer (test-vectors/typed-pq/cases.json), as verify
 * inputs with their expected outcomes, for the unit tests on both crypto providers.
 */

/** One case of cases.json. */
export interface TypedPqCorpusCase {
  file: string;
  format: string;
  status: string;
  trust?: string;
  keys?: string;
  producer_verdict: 'valid' | 'invalid' | 'not-checked';
  error?: string;
  note: string;
}

/** cases.json. */
export interface TypedPqCorpus {
  format_dir: string;
  producer: { repo: string; commit: string; paths: string[] };
  cases: TypedPqCorpusCase[];
}
