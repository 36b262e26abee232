/**
 * The labelled samples of every format, for demos, docs and tests: `evroom samples` writes them
 * and the app loads them into the ledger.
 *
 * Decisions:
 * - Everything is fixed: seeds, key ids, times, receipt ids, IVs and the log entries, so two runs
 *   give byte-identical files. Ed25519 is deterministic by design. ML-DSA-65 signing is hedged
 *   (randomized) in the crypto provider; samples sign with FIPS 204's deterministic variant
 *   instead (ML-DSA.Sign with rnd = 32 zero bytes, which verifies exactly like a hedged
 *   signature), so the typed-pq samples are byte-identical too. Randomness is refused outright:
 *   the samples' provider throws if anything asks for it.
 * - Each format makes its own samples (src-shared/formats/<name>/samples.ts), in the registry's
 *   order; the valid samples are the docs' worked examples where one exists, so the docs and the
 *   demo data agree.
 * - Each sample's expected status is stated, not computed: the tests check that `evroom verify`
 *   agrees, so a change in either the samples or the verifier shows up.
 * - Expected trust is the trust with keys.json pinned (`--trust`). With `--keys` instead, every
 *   status is the same and trust is `unpinned` wherever it would be `trusted`.
 * - Every seed here is public. The keys are labelled as sample keys; never pin them outside
 *   the samples.
 */
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { b64uEncode } from '../../src-shared/crypto';
import type { CryptoProvider } from '../../src-shared/crypto/provider';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { catalogueModules } from '../../src-shared/verify/registry';
import { createSampleKit, type SampleSet } from '../../src-shared/verify/sample-kit';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';

export { SAMPLES_NOW, SAMPLES_SECRET_ID } from '../../src-shared/verify/sample-kit';
export type { SampleFile, SampleSet } from '../../src-shared/verify/sample-kit';

/**
 * Build every sample.
 *
 * @returns The sample documents, the keys that verify them and the sealed samples' secret.
 */
export function buildSamples(): SampleSet {
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, samplesCrypto());
  for (const module of catalogueModules()) module.samples(kit);
  return set;
}

/**
 * Every file `evroom samples` writes: the documents, keys.json, secrets.json, index.json and
 * README.md.
 *
 * @param set - The samples.
 * @returns Paths (with `/`) and contents.
 */
export function sampleOutputs(set: SampleSet): { file: string; text: string }[] {
  const index = set.files.map(({ file, format, expected_status, expected_trust, note }) => ({
    file,
    format,
    expected_status,
    expected_trust,
    note,
  }));
  const secrets = { secrets: set.secrets.map((secret) => ({ key_id: secret.key_id, key: b64uEncode(secret.key) })) };
  return [
    ...set.files.map(({ file, text }) => ({ file, text })),
    { file: 'keys.json', text: serializeKeyFile(set.keys) },
    { file: 'secrets.json', text: `${JSON.stringify(secrets, null, 2)}\n` },
    { file: 'index.json', text: `${JSON.stringify(index, null, 2)}\n` },
    { file: 'README.md', text: sampleReadme(set) },
  ];
}

/**
 * The node provider with deterministic ML-DSA-65 signing and no randomness at all.
 */
function samplesCrypto(): CryptoProvider {
  const base = createNodeCryptoProvider();
  return Object.freeze({
    ...base,
    name: 'samples',
    mldsa65Sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      // FIPS 204 section 3.4: the deterministic variant; verifiers cannot tell it from hedged.
      return ml_dsa65.sign(message, secretKey, { extraEntropy: false });
    },
    randomBytes(): Uint8Array {
      throw new Error('the samples are deterministic and must not ask for randomness');
    },
  });
}

function sampleReadme(set: SampleSet): string {
  const rows = set.files.map(
    (file) =>
      `| \`${file.file}\` | ${file.format} | ${file.expected_status} | ${file.expected_trust} | ${file.note.replace(/\|/g, '\\|')} |`,
  );
  return [
    '# Evidence Room samples',
    '',
    'Labelled sample documents of every format `evroom verify` reads: a valid one and broken ones',
    '(tampered after signing, forged by an unknown key, malformed, unsupported), with the status',
    'each must get. Written by `evroom samples`; identical on every run.',
    '',
    'Verify them all (trust is `trusted` because keys.json is pinned with `--trust`):',
    '',
    '```sh',
    'evroom verify --trust keys.json --secret secrets.json */*.json',
    '```',
    '',
    'With `--keys keys.json` instead of `--trust`, every status is the same and trust is',
    '`unpinned` (cryptographically valid, issuer unknown) wherever it was `trusted`.',
    '',
    '- `keys.json`: the public keys of every sample signer (key file shape, PROTOCOL section 0).',
    '- `secrets.json`: the AES-256-GCM secret of the sealed samples.',
    '- `index.json`: this table as JSON: `[{file, format, expected_status, expected_trust, note}]`.',
    '',
    'Every seed behind these keys is public (they are fixed so the files are reproducible). The',
    'sample keys prove nothing outside the samples: never pin them in a real trust store.',
    "ML-DSA-65 documents are signed with FIPS 204's deterministic variant so they too are",
    'byte-identical on every run; verification is the same as for hedged signatures.',
    '',
    '| File | Format | Expected status | Expected trust | What it shows |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
