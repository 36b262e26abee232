/**
 * What a SiGR chain receipt's signature covers: the base members (JCS), the bound bytes
 * `H(JCS(base)) ‖ causal_root` whose hash is the signed payload digest, and, through the causal
 * root, each step's committed record.
 */
import { hexEncode } from '../../crypto';
import { jcs } from '../../json';
import { isJsonObject } from '../../verify/fields';
import type { SignedContentInput } from '../../verify/format-module';
import { type SignedBytes, utf8SignedBytes } from '../../verify/signed-bytes';
import {
  type SigrBase,
  type SigrStepRecord,
  baseCanonical,
  committedRecord,
  payloadPreimage,
  sigrSuite,
} from './chain';

/**
 * The signed content of a SiGR chain receipt.
 *
 * @param input - The parsed document.
 * @returns The base's JCS, the bound bytes (hex), and each step's committed record (sorted by its
 *   text, since the order of steps is not signed); nothing for a receipt without an envelope or
 *   of a hash suite not executed.
 * @throws TypeError or RangeError for a receipt too broken to hash (the caller shows nothing).
 */
export function sigrChainSignedContent(input: SignedContentInput): SignedBytes[] {
  const { crypto, value } = input;
  const envelope = value['envelope'];
  if (!isJsonObject(envelope)) return [];
  const suiteName = envelope['hash_suite'];
  const suite = sigrSuite(typeof suiteName === 'string' ? suiteName : undefined, crypto);
  if (suite === undefined || !Array.isArray(envelope['steps'])) return [];
  const base = envelope as unknown as SigrBase;
  const H = suite.name.toUpperCase();
  const entries: SignedBytes[] = [
    utf8SignedBytes(
      crypto,
      'JCS of the base {object, version, sig_scheme, public_key, run_id, agent_ref, step_count, causal_root}',
      baseCanonical(base),
      `its ${H} is the first half of the bound bytes below`,
    ),
  ];
  const bound = payloadPreimage(base, suite);
  entries.push({
    label: `${H}(JCS(base)) ‖ causal_root`,
    text: hexEncode(bound),
    encoding: 'hex',
    sha256: hexEncode(crypto.sha256(bound)),
    coverage: `ML-DSA-65 signature over the raw ${H} of these bytes (payload_digest)`,
  });
  const records = (envelope['steps'] as unknown as SigrStepRecord[])
    .map((step) => ({ id: step.step_id, text: jcs(committedRecord(step)) }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  for (const record of records) {
    entries.push(
      utf8SignedBytes(
        crypto,
        `Step ${JSON.stringify(record.id)}: committed record (parents sorted)`,
        record.text,
        `its ${H} is the step's commit_digest, a leaf of causal_root`,
      ),
    );
  }
  return entries;
}
