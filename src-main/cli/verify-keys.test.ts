import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64Encode, createPortableProvider } from '../../src-shared/crypto';
import { signTypedPq } from '../../src-shared/formats/typed-pq/sign';
import { signClassical } from '../../src-shared/formats/classical/sign';
import type { KeyEntry } from '../../src-shared/verify/context';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { ed25519KeyEntry } from '../../src-shared/verify/keys';
import type { Report } from '../../src-shared/verify/report';

// One key resolution through the CLI as a user runs it: the same document and the same keys give
// the same status whether the keys are given (--keys) or pinned (--trust), and key sources that
// give one key id two keys are refused.

const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createPortableProvider();
const signer = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x71));
const other = crypto.mldsa65KeyGen(new Uint8Array(32).fill(0x72));
const KEY_ID = 'did:svc:test:pq-cli';
const FRAGMENTS = [
  { text: 'request', type: 'reasoning' },
  { text: 'answer', type: 'final' },
];
const SIGN_OPTIONS = { issuedAt: '2026-06-01T00:00:00.000Z' };

let dir: string;

function evroom(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', EVROOM_HOME: join(dir, 'home') },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function keyFile(name: string, entries: KeyEntry[]): string {
  return file(name, serializeKeyFile(entries));
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'evroom-verify-keys-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('evroom verify: one key resolution', () => {
  it('a typed-pq attestation names no key: a pinned key matches its inline key by bytes, and only then', () => {
    const document = file(
      'inline.json',
      JSON.stringify(signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, crypto, SIGN_OPTIONS)),
    );
    const same = keyFile('pq-same.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: signer.publicKey }]);
    const another = keyFile('pq-other.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: other.publicKey }]);
    const trusted = evroom(['verify', '--json', '--no-trust-store', '--trust', same, document]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout) as Report).toMatchObject({
      status: 'PASS',
      trust: { status: 'trusted', key_id: KEY_ID },
    });
    for (const [option, keys] of [
      ['--trust', another],
      ['--keys', same],
    ] as const) {
      const result = evroom(['verify', '--json', '--no-trust-store', option, keys, document]);
      expect(result.code, `${option} ${result.stderr}`).toBe(0);
      expect((JSON.parse(result.stdout) as Report).trust.status, option).toBe('unpinned');
    }
  });

  it('an inline key swapped for another is MISMATCH, whatever key is pinned', () => {
    const signed = signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, crypto, SIGN_OPTIONS);
    (signed['envelope'] as Record<string, unknown>)['public_key'] = b64Encode(other.publicKey);
    const document = file('swapped.json', JSON.stringify(signed));
    const keys = keyFile('pq-keys.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: signer.publicKey }]);
    for (const option of ['--keys', '--trust']) {
      const result = evroom(['verify', '--json', '--no-trust-store', option, keys, document]);
      expect(result.code, `${option} ${result.stderr}`).toBe(1);
      const report = JSON.parse(result.stdout) as Report;
      expect([report.status, report.trust.status], option).toEqual(['MISMATCH', 'unattributed']);
      expect(report.errors.map((error) => error.code)).toContain('payload_digest_mismatch');
    }
  });

  it('refuses two key files that define one key id differently, as one file with a duplicate is (exit 2)', () => {
    const document = file(
      'valid.json',
      JSON.stringify(signTypedPq(FRAGMENTS, signer.secretKey, signer.publicKey, crypto, SIGN_OPTIONS)),
    );
    const first = keyFile('first.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: signer.publicKey }]);
    const second = keyFile('second.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: other.publicKey }]);
    const same = keyFile('same.json', [{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: signer.publicKey }]);
    const twoFiles = evroom(['verify', '--no-trust-store', '--keys', first, '--keys', second, document]);
    expect(twoFiles.code).toBe(2);
    expect(twoFiles.stderr).toContain(
      `key file ${second} at /keys/0/public_key: Key id "${KEY_ID}" names different keys in key file ${first} and in key file ${second}`,
    );
    const across = evroom(['verify', '--no-trust-store', '--trust', first, '--keys', second, document]);
    expect(across.code).toBe(2);
    expect(across.stderr).toContain('names different keys in the --trust files and in the --keys files');
    const oneFile = file(
      'duplicate.json',
      JSON.stringify({
        keys: [
          JSON.parse(serializeKeyFile([{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: signer.publicKey }]))
            .keys[0],
          JSON.parse(serializeKeyFile([{ key_id: KEY_ID, algorithm: 'ML-DSA-65', public_key: other.publicKey }]))
            .keys[0],
        ],
      }),
    );
    expect(evroom(['verify', '--no-trust-store', '--keys', oneFile, document]).code).toBe(2);
    // The same key given twice is no conflict.
    const agreeing = evroom(['verify', '--no-trust-store', '--keys', first, '--trust', same, document]);
    expect(agreeing.code, agreeing.stderr).toBe(0);
  });
});

describe('evroom verify: a tampered document naming a pinned key (PROTOCOL section 1)', () => {
  it('is unattributed, says so plainly, and fails --require-trusted', () => {
    const seed = new Uint8Array(32).fill(0x73);
    const valid = signClassical({ receipt_id: 'r-1', sequence: 7, amount: '12.00' }, seed, crypto);
    const tampered = file('tampered-classical.json', valid.replace('"amount":"12.00"', '"amount":"99.00"'));
    const pinned = keyFile('pinned.json', [ed25519KeyEntry(crypto, 'did:svc:test:cli-pinned', seed)]);
    const good = evroom(['verify', '--json', '--no-trust-store', '--trust', pinned, file('valid.json', valid)]);
    expect((JSON.parse(good.stdout) as Report).trust.status, good.stderr).toBe('trusted');

    const json = evroom(['verify', '--json', '--no-trust-store', '--trust', pinned, tampered]);
    const report = JSON.parse(json.stdout) as Report;
    expect([report.status, report.trust.status, report.trust.claimed_key_id]).toEqual([
      'MISMATCH',
      'unattributed',
      'did:svc:test:cli-pinned',
    ]);
    const human = evroom(['verify', '--no-trust-store', '--trust', pinned, tampered]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      'unattributed: the document names did:svc:test:cli-pinned, but that key did not sign what is here',
    );
    expect(human.stdout).not.toMatch(/trust\s+trusted/);
    const strict = evroom(['verify', '--require-trusted', '--no-trust-store', '--trust', pinned, tampered]);
    expect(strict.code).toBe(1);
  });
});
