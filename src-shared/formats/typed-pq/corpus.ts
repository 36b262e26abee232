/**
 * The typed-pq corpus made by the real producer (test-vectors/typed-pq/cases.json), as verify
 * inputs with their expected outcomes, for the unit tests on both crypto providers.
 */
import { b64uDecode } from '../../crypto';
import type { KeyEntry } from '../../verify/context';

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

/**
 * The keys of a corpus key file (`{"keys":[{key_id, algorithm, public_key}]}`), read without the
 * key-file parser so this corpus tests the verifier alone.
 *
 * @param text - The key file's text.
 * @returns The entries, as keys that came with the input.
 * @throws TypeError if the file is not of that shape.
 */
export function corpusKeys(text: string): KeyEntry[] {
  const parsed = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(parsed.keys)) throw new TypeError('A corpus key file is {"keys": [...]}');
  return parsed.keys.map((entry: { key_id?: unknown; algorithm?: unknown; public_key?: unknown }) => {
    if (typeof entry.key_id !== 'string' || entry.algorithm !== 'ML-DSA-65' || typeof entry.public_key !== 'string') {
      throw new TypeError('A corpus key is {key_id, algorithm: "ML-DSA-65", public_key}');
    }
    return { key_id: entry.key_id, algorithm: 'ML-DSA-65', public_key: b64uDecode(entry.public_key) };
  });
}
