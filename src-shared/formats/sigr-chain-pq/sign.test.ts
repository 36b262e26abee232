import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import type { JsonObject } from '../../verify/fields';
import { verifyDocument } from '../../verify/verify';
import { sigrSuite } from './chain';
import { sigrChainExampleRun } from './example';
import { signSigrChain, type SigrRun } from './sign';

const crypto = createPortableProvider();
const key = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x63));
const sha256 = sigrSuite('sha-256', crypto);
const sha384 = sigrSuite('sha-384', crypto);
if (sha256 === undefined || sha384 === undefined) throw new Error('suites missing');
const OPTIONS = { issuedAt: '2026-06-01T12:00:00.000Z' };
const folder = fileURLToPath(new URL('../../../test-vectors/sigr-chain/', import.meta.url));

function sign(run: SigrRun, options: Parameters<typeof signSigrChain>[4] = OPTIONS): JsonObject {
  return signSigrChain(run, key.secretKey, key.publicKey, crypto, options)['envelope'] as JsonObject;
}

describe('signSigrChain', () => {
  it("seals the producer's test run to the producer's own step commits and causal root", () => {
    for (const [file, suite, hashSuite] of [
      ['dag-valid.json', sha256, 'sha-256'],
      ['dag-sha384-valid.json', sha384, 'sha-384'],
    ] as const) {
      const producer = (JSON.parse(readFileSync(`${folder}${file}`, 'utf8')) as { envelope: JsonObject }).envelope;
      const ours = sign(sigrChainExampleRun(suite), { ...OPTIONS, hashSuite });
      const commits = (envelope: JsonObject): unknown[] =>
        (envelope['steps'] as JsonObject[]).map((step) => [step['step_id'], step['commit_digest']]);
      expect(commits(ours), file).toEqual(commits(producer));
      expect(ours['causal_root']).toBe(producer['causal_root']);
      expect(ours['hash_suite']).toBe(producer['hash_suite']);
      expect(Object.keys(ours)).toEqual(Object.keys(producer).filter((name) => name !== 'patent_pending'));
    }
  });

  it('writes steps in the order given, parents sorted, and verifies PASS', () => {
    const run = sigrChainExampleRun(sha256);
    const reversed = { ...run, steps: [...run.steps].reverse() };
    const envelope = sign(reversed);
    const steps = envelope['steps'] as JsonObject[];
    expect(steps.map((step) => step['step_id'])).toEqual(['s5', 's4', 's3', 's2', 's1']);
    expect(steps[1]?.['parents']).toEqual(['s2', 's3']);
    expect(
      verifyDocument(JSON.stringify({ envelope }), { crypto, pinned: [], advertised: [], secrets: [], now: new Date() })
        .status,
    ).toBe('PASS');
  });

  it('refuses a run that is not a DAG of distinct steps', () => {
    const run = sigrChainExampleRun(sha256);
    const steps = run.steps.map((step) => ({ ...step }));
    const edit = (change: (copy: typeof steps) => void): SigrRun => {
      const copy = steps.map((step) => ({ ...step, parents: [...step.parents] }));
      change(copy);
      return { ...run, steps: copy };
    };
    expect(() => sign(edit((copy) => (copy[0] = { ...(copy[0] as (typeof copy)[0]), parents: ['s5'] })))).toThrow(
      /cycle/,
    );
    expect(() => sign(edit((copy) => (copy[1] = { ...(copy[1] as (typeof copy)[0]), step_id: 's3' })))).toThrow(
      /share/,
    );
    expect(() => sign(edit((copy) => (copy[1] = { ...(copy[1] as (typeof copy)[0]), parents: ['nope'] })))).toThrow(
      /unknown parent/,
    );
    expect(() => sign(edit((copy) => (copy[1] = { ...(copy[1] as (typeof copy)[0]), kind: 'browse' })))).toThrow(
      RangeError,
    );
    expect(() => sign(edit((copy) => (copy[1] = { ...(copy[1] as (typeof copy)[0]), io_digest: 'AB' })))).toThrow(
      RangeError,
    );
    expect(() => sign({ ...run, steps: [] })).toThrow(RangeError);
    expect(() => sign(run, { issuedAt: 'now' })).toThrow(RangeError);
    expect(() => sign({ ...run, run_id: '' })).toThrow(TypeError);
    const wrongKey = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x64));
    expect(() => signSigrChain(run, wrongKey.secretKey, key.publicKey, crypto, OPTIONS)).toThrow(/does not verify/);
  });
});
