import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { concatBytes, createPortableProvider, hexDecode, hexEncode, utf8Encode } from '../../crypto';
import {
  baseCanonical,
  committedRecord,
  ioDigest,
  payloadDigest,
  sigrMerkleRoot,
  sigrSuite,
  stepCommitDigest,
  type SigrBase,
  type SigrStepRecord,
} from './chain';
import { sigrChainExampleRun } from './example';

const crypto = createPortableProvider();
const sha256 = sigrSuite('sha-256', crypto);
const sha384 = sigrSuite('sha-384', crypto);
if (sha256 === undefined || sha384 === undefined) throw new Error('suites missing');
const folder = fileURLToPath(new URL('../../../test-vectors/sigr-chain/', import.meta.url));
const read = (file: string): { envelope: SigrBase & { steps: (SigrStepRecord & { commit_digest: string })[] } } =>
  JSON.parse(readFileSync(`${folder}${file}`, 'utf8')) as never;

describe('the SiGR chain digests', () => {
  it('names the two suites, case-insensitively, absent meaning sha-256, and no other', () => {
    expect(sigrSuite(undefined, crypto)?.name).toBe('sha-256');
    expect(sigrSuite('SHA-384', crypto)?.length).toBe(48);
    expect(sigrSuite('sha3-256', crypto)).toBeUndefined();
    expect(sigrSuite('', crypto)).toBeUndefined();
  });

  it('folds a Merkle root over sorted digests, an odd node paired with itself', () => {
    const [a, b, c] = ['aa', 'bb', 'cc'].map((byte) => byte.repeat(32));
    const h = (left: string, right: string): string =>
      hexEncode(crypto.sha256(concatBytes(hexDecode(left), hexDecode(right))));
    expect(sigrMerkleRoot([], sha256)).toBe('0'.repeat(64));
    expect(sigrMerkleRoot([a as string], sha256)).toBe(a);
    expect(sigrMerkleRoot([b as string, a as string], sha256)).toBe(h(a as string, b as string));
    expect(sigrMerkleRoot([c as string, a as string, b as string], sha256)).toBe(
      h(h(a as string, b as string), h(c as string, c as string)),
    );
    expect(() => sigrMerkleRoot(['aa'.repeat(32)], sha384)).toThrow(RangeError);
  });

  it('commits a step with its parents sorted and its commit_digest left out', () => {
    const step: SigrStepRecord = {
      object: 'sigr.chain.step',
      step_id: 's4',
      kind: 'merge',
      seq: 2,
      parents: ['s3', 's2'],
      io_digest: '11'.repeat(32),
      parent_commit_root: '22'.repeat(32),
    };
    expect(committedRecord(step)['parents']).toEqual(['s2', 's3']);
    expect(step.parents).toEqual(['s3', 's2']);
    const text =
      '{"io_digest":"' +
      '11'.repeat(32) +
      '","kind":"merge","object":"sigr.chain.step","parent_commit_root":"' +
      '22'.repeat(32) +
      '","parents":["s2","s3"],"seq":2,"step_id":"s4"}';
    expect(stepCommitDigest(step, sha256)).toBe(hexEncode(crypto.sha256(utf8Encode(text))));
  });

  it("recomputes every digest of the producer's own receipts (SHA-256 and SHA-384)", () => {
    for (const [file, suite] of [
      ['dag-valid.json', sha256],
      ['dag-sha384-valid.json', sha384],
    ] as const) {
      const { envelope } = read(file);
      for (const step of envelope.steps) expect(stepCommitDigest(step, suite), file).toBe(step.commit_digest);
      const commits = envelope.steps.map((step) => step.commit_digest);
      expect(sigrMerkleRoot(commits, suite)).toBe(envelope.causal_root);
      expect(hexEncode(payloadDigest(envelope, suite))).toBe(
        (envelope as unknown as Record<string, string>)['payload_digest'],
      );
      expect(baseCanonical(envelope).startsWith('{"agent_ref":"research-agent-v2","causal_root":')).toBe(true);
    }
  });

  it("derives the producer's io_digest from a step's input and output", () => {
    // The example run is the producer's test run; its io digests are those of dag-valid.json.
    const { envelope } = read('dag-valid.json');
    for (const suite of [sha256]) {
      const run = sigrChainExampleRun(suite);
      expect(run.steps.map((step) => step.io_digest)).toEqual(envelope.steps.map((step) => step.io_digest));
    }
    const none = hexEncode(crypto.sha256(utf8Encode('null')));
    expect(ioDigest(none, none, sha256)).toBe(
      hexEncode(crypto.sha256(utf8Encode(`{"input_digest":"${none}","output_digest":"${none}"}`))),
    );
  });
});
