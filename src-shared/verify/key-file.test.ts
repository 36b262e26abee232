import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, didKeyFromEd25519 } from '../crypto';
import { createVerifyContext, type KeyEntry } from './context';
import { findEmbeddedKey } from './keys';
import { parseJsonTree } from '../json';
import {
  checkKeySources,
  KeyFileError,
  parseKeyFile,
  parseKeyFileTree,
  parseSecretsFile,
  serializeKeyFile,
} from './key-file';

const crypto = createPortableProvider();
const publicKey = crypto.ed25519PublicKey(new Uint8Array(32).fill(1));
const pk = b64uEncode(publicKey);
const mldsa = b64uEncode(crypto.mldsa65KeyGen(new Uint8Array(32).fill(2)).publicKey);

function keyFile(...entries: object[]): string {
  return JSON.stringify({ keys: entries });
}

function failure(run: () => unknown): KeyFileError {
  try {
    run();
  } catch (error) {
    if (error instanceof KeyFileError) return error;
    throw error;
  }
  throw new Error('expected a KeyFileError');
}

describe('parseKeyFile', () => {
  it('reads every field of both algorithms', () => {
    const entries = parseKeyFile(
      keyFile(
        {
          key_id: 'did:svc:evroom:k1',
          algorithm: 'Ed25519',
          public_key: pk,
          label: 'Acme',
          not_before: '2026-01-01T00:00:00Z',
          not_after: '2027-01-01T00:00:00.000Z',
          status: 'pinned',
        },
        {
          key_id: 'did:web:pq.example.com',
          algorithm: 'ML-DSA-65',
          public_key: mldsa,
          status: 'revoked',
          use: ['typed-pq'],
        },
      ),
    );
    expect(entries).toEqual([
      {
        key_id: 'did:svc:evroom:k1',
        algorithm: 'Ed25519',
        public_key: publicKey,
        label: 'Acme',
        not_before: '2026-01-01T00:00:00Z',
        not_after: '2027-01-01T00:00:00.000Z',
        status: 'pinned',
      },
      {
        key_id: 'did:web:pq.example.com',
        algorithm: 'ML-DSA-65',
        public_key: expect.any(Uint8Array),
        status: 'revoked',
      },
    ]);
    expect(entries[1]?.public_key).toHaveLength(1952);
    expect(parseKeyFile('{"keys":[],"note":"listing confers no trust"}')).toEqual([]);
  });

  it('round-trips through serializeKeyFile', () => {
    const entries: KeyEntry[] = [
      {
        key_id: 'did:svc:a',
        algorithm: 'Ed25519',
        public_key: publicKey,
        label: 'A',
        not_before: '2026-01-01T00:00:00Z',
        status: 'revoked',
      },
      { key_id: didKeyFromEd25519(publicKey), algorithm: 'Ed25519', public_key: publicKey },
    ];
    const text = serializeKeyFile(entries);
    expect(text.endsWith('\n')).toBe(true);
    expect(parseKeyFile(text)).toEqual(entries);
    expect(() => serializeKeyFile('x' as never)).toThrow(TypeError);
  });

  it('advertised mode drops status and label and accepts any status word', () => {
    const text = keyFile({
      key_id: 'did:svc:a',
      algorithm: 'Ed25519',
      public_key: pk,
      status: 'active',
      label: 'x',
      use: ['sign'],
    });
    expect(parseKeyFile(text, { advertised: true })).toEqual([
      { key_id: 'did:svc:a', algorithm: 'Ed25519', public_key: publicKey },
    ]);
    expect(failure(() => parseKeyFile(text))).toMatchObject({ code: 'invalid_status', path: '/keys/0/status' });
  });

  const good = { key_id: 'did:svc:a', algorithm: 'Ed25519', public_key: pk };
  const cases: [string, string, string, string][] = [
    ['duplicate member', '{"keys":[],"keys":[]}', 'duplicate_name', '/keys'],
    ['not JSON', '{"keys":[', 'unexpected_end', '/keys/0'],
    ['not an object', '[]', 'invalid_type', ''],
    ['no keys', '{}', 'missing_property', '/keys'],
    ['a bare public key', '{"pubKeyB64u":"x"}', 'missing_property', '/keys'],
    ['keys not an array', '{"keys":{}}', 'invalid_type', '/keys'],
    ['unknown top-level member', '{"keys":[],"extra":1}', 'unknown_property', '/extra'],
    ['note not a string', '{"keys":[],"note":1}', 'invalid_type', '/note'],
    ['entry not an object', '{"keys":[1]}', 'invalid_type', '/keys/0'],
    ['missing key_id', keyFile({ algorithm: 'Ed25519', public_key: pk }), 'missing_property', '/keys/0/key_id'],
    ['unknown entry member', keyFile({ ...good, colour: 'red' }), 'unknown_property', '/keys/0/colour'],
    ['key_id with a space', keyFile({ ...good, key_id: 'key 1' }), 'invalid_key_id', '/keys/0/key_id'],
    ['key_id with a control character', keyFile({ ...good, key_id: 'key\u00071' }), 'invalid_key_id', '/keys/0/key_id'],
    ['key_id of 257 characters', keyFile({ ...good, key_id: 'k'.repeat(257) }), 'invalid_key_id', '/keys/0/key_id'],
    ['empty key_id', keyFile({ ...good, key_id: '' }), 'invalid_key_id', '/keys/0/key_id'],
    ['did: with an empty method', keyFile({ ...good, key_id: 'did::abc' }), 'invalid_key_id', '/keys/0/key_id'],
    ['key_id not a string', keyFile({ ...good, key_id: 7 }), 'invalid_key_id', '/keys/0/key_id'],
    ['private key in an entry', keyFile({ ...good, private_key: pk }), 'private_key', '/keys/0/private_key'],
    ['private key beside the list', JSON.stringify({ keys: [good], secretKey: pk }), 'private_key', '/secretKey'],
    [
      'an evroom private key file',
      JSON.stringify({ key_id: 'did:svc:a', algorithm: 'Ed25519', public_key: pk, seed: pk }),
      'private_key',
      '/seed',
    ],
    ['bad algorithm', keyFile({ ...good, algorithm: 'ed25519' }), 'invalid_algorithm', '/keys/0/algorithm'],
    ['short key', keyFile({ ...good, public_key: pk.slice(0, 40) }), 'invalid_public_key', '/keys/0/public_key'],
    ['padded key', keyFile({ ...good, public_key: `${pk}=` }), 'invalid_public_key', '/keys/0/public_key'],
    [
      'Ed25519 length for ML-DSA',
      keyFile({ ...good, algorithm: 'ML-DSA-65' }),
      'invalid_public_key',
      '/keys/0/public_key',
    ],
    ['bad not_before', keyFile({ ...good, not_before: '2026-01-01' }), 'invalid_timestamp', '/keys/0/not_before'],
    [
      'reversed window',
      keyFile({ ...good, not_before: '2027-01-01T00:00:00Z', not_after: '2026-01-01T00:00:00Z' }),
      'invalid_window',
      '/keys/0/not_after',
    ],
    ['bad status', keyFile({ ...good, status: 'trusted' }), 'invalid_status', '/keys/0/status'],
    ['bad label', keyFile({ ...good, label: 7 }), 'invalid_label', '/keys/0/label'],
    ['bad use', keyFile({ ...good, use: 'sign' }), 'invalid_use', '/keys/0/use'],
    ['duplicate key id', keyFile(good, good), 'duplicate_key_id', '/keys/1/key_id'],
    [
      'did:key of another key',
      keyFile({ ...good, key_id: didKeyFromEd25519(crypto.ed25519PublicKey(new Uint8Array(32))) }),
      'did_key_mismatch',
      '/keys/0/public_key',
    ],
  ];
  it.each(cases)('%s is refused with its path', (_name, text, code, path) => {
    const error = failure(() => parseKeyFile(text));
    expect(error.code).toBe(code);
    expect(error.path).toBe(path);
    expect(error.message.length).toBeGreaterThan(10);
  });

  it('throws TypeError for non-string input', () => {
    expect(() => parseKeyFile(new Uint8Array(2) as never)).toThrow(TypeError);
  });
});

describe('parseKeyFileTree', () => {
  const good = keyFile({
    key_id: 'did:svc:evroom:k1',
    algorithm: 'Ed25519',
    public_key: pk,
    use: ['receipts'],
    status: 'active',
  });
  const bad = [
    keyFile(
      { key_id: 'did:svc:evroom:k1', algorithm: 'Ed25519', public_key: pk },
      { key_id: 'did:svc:evroom:k1', algorithm: 'Ed25519', public_key: pk },
    ),
    keyFile({ key_id: 'did:svc:evroom:k1', algorithm: 'Ed25519', public_key: 'not b64u!' }),
    keyFile({ key_id: 'did:svc:evroom:k1', algorithm: 'Ed25519', public_key: pk, extra: 1 }),
    JSON.stringify({ keys: [], note: 7 }),
    JSON.stringify({ keys: {} }),
  ];

  it('gives the entries parseKeyFile gives for the same text', () => {
    expect(parseKeyFileTree(parseJsonTree(good), { advertised: true })).toEqual(
      parseKeyFile(good, { advertised: true }),
    );
    expect(parseKeyFileTree(parseJsonTree(good), { advertised: true })).toHaveLength(1);
  });

  it.each(bad)('refuses what parseKeyFile refuses, with the same code, path and message: %s', (text) => {
    const fromText = failure(() => parseKeyFile(text, { advertised: true }));
    const fromTree = failure(() => parseKeyFileTree(parseJsonTree(text), { advertised: true }));
    expect({ code: fromTree.code, path: fromTree.path, message: fromTree.message }).toEqual({
      code: fromText.code,
      path: fromText.path,
      message: fromText.message,
    });
  });
});

describe('parseSecretsFile', () => {
  const key = b64uEncode(new Uint8Array(32).fill(9));
  it('reads secrets', () => {
    expect(parseSecretsFile(JSON.stringify({ secrets: [{ key_id: 'tenant-1/2026', key }] }))).toEqual([
      { key_id: 'tenant-1/2026', key: new Uint8Array(32).fill(9) },
    ]);
  });

  const cases: [string, object, string, string][] = [
    ['short key', { secrets: [{ key_id: 's', key: key.slice(0, 20) }] }, 'invalid_secret', '/secrets/0/key'],
    ['space in id', { secrets: [{ key_id: 'a b', key }] }, 'invalid_key_id', '/secrets/0/key_id'],
    ['empty id', { secrets: [{ key_id: '', key }] }, 'invalid_key_id', '/secrets/0/key_id'],
    [
      'duplicate id',
      {
        secrets: [
          { key_id: 's', key },
          { key_id: 's', key },
        ],
      },
      'duplicate_key_id',
      '/secrets/1/key_id',
    ],
    ['unknown member', { secrets: [{ key_id: 's', key, alg: 'A256GCM' }] }, 'unknown_property', '/secrets/0/alg'],
    ['missing secrets', { keys: [] }, 'missing_property', '/secrets'],
  ];
  it.each(cases)('%s is refused with its path', (_name, value, code, path) => {
    expect(failure(() => parseSecretsFile(JSON.stringify(value)))).toMatchObject({ code, path });
  });
});

describe('checkKeySources', () => {
  const a = { key_id: 'did:svc:test:a', algorithm: 'Ed25519' as const, public_key: new Uint8Array(32).fill(1) };
  const b = { ...a, public_key: new Uint8Array(32).fill(2) };

  it('accepts one key id naming one key in every source, windows aside', () => {
    expect(() =>
      checkKeySources([
        { name: 'x', entries: [a] },
        { name: 'y', entries: [{ ...a, not_after: '2030-01-01T00:00:00Z' }] },
      ]),
    ).not.toThrow();
  });

  it('refuses one key id naming two keys, across sources or within one, naming both', () => {
    expect(() =>
      checkKeySources([
        { name: 'the trust store', entries: [a] },
        { name: 'the --keys files', entries: [b] },
      ]),
    ).toThrow(/names different keys in the trust store and in the --keys files/);
    expect(() => checkKeySources([{ name: 'x', entries: [a, b] }])).toThrow(/twice in x/);
    expect(() =>
      checkKeySources([
        { name: 'x', entries: [a] },
        { name: 'y', entries: [{ ...a, algorithm: 'ML-DSA-65' as const }] },
      ]),
    ).toThrow(KeyFileError);
  });
});

describe('key file roles', () => {
  const base = { key_id: 'did:svc:test:r', algorithm: 'Ed25519', public_key: pk };

  it('keeps the roles a pinned key signs for, and round-trips them', () => {
    const [entry] = parseKeyFile(keyFile({ ...base, roles: ['requester', 'service'] }));
    expect(entry?.roles).toEqual(['requester', 'service']);
    expect(parseKeyFile(serializeKeyFile([entry as KeyEntry]))).toEqual([entry]);
    // A key that is only given vouches for nothing: its roles are checked, then dropped.
    expect(parseKeyFile(keyFile({ ...base, roles: ['service'] }), { advertised: true })[0]?.roles).toBeUndefined();
  });

  it('refuses roles that are empty, unknown, repeated or not an array, naming the path', () => {
    for (const [roles, path] of [
      [[], '/keys/0/roles'],
      [['auditor', 'owner'], '/keys/0/roles/1'],
      [['service', 'service'], '/keys/0/roles/1'],
      ['service', '/keys/0/roles'],
    ] as const) {
      expect(() => parseKeyFile(keyFile({ ...base, roles }))).toThrow(
        expect.objectContaining({ code: 'invalid_roles', path }),
      );
    }
  });
});

describe('key ids in key files (PROTOCOL section 0)', () => {
  it('accepts any DID method and opaque ids, keeping them exactly', () => {
    const ids = ['did:hive:typed-demo', 'did:hive:abc123', 'test-key-001', 'did:web:example.com', 'k'.repeat(256)];
    const text = keyFile(...ids.map((key_id) => ({ key_id, algorithm: 'Ed25519', public_key: pk })));
    expect(parseKeyFile(text).map((entry) => entry.key_id)).toEqual(ids);
    expect(parseKeyFile(text, { advertised: true }).map((entry) => entry.key_id)).toEqual(ids);
  });

  it('reads a /v1/keys answer that lists opaque and did:hive ids', () => {
    const listing = JSON.stringify({
      keys: ['test-key-001', 'did:hive:typed-demo'].map((key_id) => ({
        key_id,
        algorithm: 'Ed25519',
        public_key: pk,
        use: ['sign'],
        status: 'active',
        not_before: '2026-01-01T00:00:00Z',
      })),
      note: 'listing confers no trust',
    });
    expect(parseKeyFile(listing, { advertised: true }).map((entry) => entry.key_id)).toEqual([
      'test-key-001',
      'did:hive:typed-demo',
    ]);
  });

  it('says what is wrong with a refused id without repeating its characters', () => {
    const spaced = failure(() => parseKeyFile(keyFile({ key_id: 'test key', algorithm: 'Ed25519', public_key: pk })));
    expect(spaced.message).toMatch(/must not contain spaces \(character 5 is a space\)/);
    const control = failure(() =>
      parseKeyFile(keyFile({ key_id: 'a\u001b[2Jb', algorithm: 'Ed25519', public_key: pk })),
    );
    expect(control.message).toMatch(/character 2 is U\+001B, a control character/);
    expect(control.message).not.toContain('\u001b');
    const long = failure(() =>
      parseKeyFile(keyFile({ key_id: 'k'.repeat(257), algorithm: 'Ed25519', public_key: pk })),
    );
    expect(long.message).toMatch(/at most 256 characters; this one has 257/);
    const method = failure(() => parseKeyFile(keyFile({ key_id: 'did::x', algorithm: 'Ed25519', public_key: pk })));
    expect(method.message).toMatch(/method is empty/);
  });
});

describe('the typed signer /pubkey answer as a key file', () => {
  const answerText = readFileSync(
    fileURLToPath(new URL('../../test-vectors/key-files/typed-signer-pubkey.json', import.meta.url)),
    'utf8',
  );
  const answer = JSON.parse(answerText) as Record<string, unknown>;
  const keyBytes = Uint8Array.from(Buffer.from(answer['publicKey_b64'] as string, 'base64'));

  it('reads the producer answer as one ML-DSA-65 key named by its issuer', () => {
    for (const advertised of [false, true]) {
      expect(parseKeyFile(answerText, { advertised })).toEqual([
        { key_id: 'did:hive:typed-demo', algorithm: 'ML-DSA-65', public_key: keyBytes },
      ]);
    }
    expect(keyBytes.length).toBe(1952);
    // A parsed tree (an HTTP request's keys member) gives the same key.
    expect(parseKeyFileTree(parseJsonTree(answerText))).toEqual(parseKeyFile(answerText));
  });

  it('takes either encoding alone and the producer algorithm spellings', () => {
    const { publicKey_hex: hex, ...b64Only } = answer;
    const { publicKey_b64: _b64, ...hexOnly } = answer;
    expect(parseKeyFile(JSON.stringify(b64Only))[0]?.public_key).toEqual(keyBytes);
    expect(parseKeyFile(JSON.stringify(hexOnly))[0]?.public_key).toEqual(keyBytes);
    expect(
      parseKeyFile(JSON.stringify({ ...hexOnly, publicKey_hex: String(hex).toUpperCase() }))[0]?.public_key,
    ).toEqual(keyBytes);
    for (const spelling of ['ml-dsa-65', 'ML_DSA_65', 'MLDSA65']) {
      expect(parseKeyFile(JSON.stringify({ ...answer, algorithm: spelling }))[0]?.algorithm).toBe('ML-DSA-65');
    }
    const ed = {
      issuer: 'test-key-001',
      algorithm: 'ed25519',
      publicKey_b64: Buffer.from(publicKey).toString('base64'),
    };
    expect(parseKeyFile(JSON.stringify(ed))).toEqual([
      { key_id: 'test-key-001', algorithm: 'Ed25519', public_key: publicKey },
    ]);
  });

  it('refuses an answer whose two encodings name different keys, and every other flaw, with its path', () => {
    const other = Uint8Array.from(keyBytes);
    other[100] = (other[100] ?? 0) ^ 1;
    const cases: [string, Record<string, unknown>, string, string][] = [
      [
        'b64 and hex disagree',
        { ...answer, publicKey_hex: Buffer.from(other).toString('hex') },
        'public_key_disagreement',
        '/publicKey_hex',
      ],
      ['issuer with a space', { ...answer, issuer: 'did:hive:typed demo' }, 'invalid_key_id', '/issuer'],
      ['issuer empty', { ...answer, issuer: '' }, 'invalid_key_id', '/issuer'],
      ['issuer did: with empty method', { ...answer, issuer: 'did::typed-demo' }, 'invalid_key_id', '/issuer'],
      ['unknown algorithm', { ...answer, algorithm: 'SLH-DSA' }, 'invalid_algorithm', '/algorithm'],
      ['no algorithm', { ...answer, algorithm: undefined }, 'missing_property', '/algorithm'],
      [
        'no key',
        { ...answer, publicKey_b64: undefined, publicKey_hex: undefined },
        'missing_property',
        '/publicKey_b64',
      ],
      [
        'b64 unpadded',
        { ...answer, publicKey_b64: String(answer['publicKey_b64']).replace(/=+$/, '') },
        'invalid_public_key',
        '/publicKey_b64',
      ],
      [
        'b64 too short',
        { ...answer, publicKey_b64: Buffer.from(keyBytes.slice(0, 32)).toString('base64') },
        'invalid_public_key',
        '/publicKey_b64',
      ],
      ['hex not hex', { ...answer, publicKey_hex: 'zz'.repeat(1952) }, 'invalid_public_key', '/publicKey_hex'],
      ['Ed25519 length', { ...answer, algorithm: 'Ed25519' }, 'invalid_public_key', '/publicKey_b64'],
      ['wrong byte count', { ...answer, publicKey_bytes: 1953 }, 'invalid_public_key', '/publicKey_bytes'],
      ['a private key beside it', { ...answer, secretKey_b64: 'AAAA' }, 'private_key', '/secretKey_b64'],
      ['a seed beside it', { ...answer, seed_hex: '00'.repeat(32) }, 'private_key', '/seed_hex'],
    ];
    for (const [name, value, code, path] of cases) {
      const error = failure(() => parseKeyFile(JSON.stringify(value)));
      expect({ name, code: error.code, path: error.path }).toEqual({ name, code, path });
    }
    expect(
      failure(() => parseKeyFile(JSON.stringify({ ...answer, publicKey_hex: Buffer.from(other).toString('hex') })))
        .message,
    ).toMatch(/different keys/);
  });

  it('refuses a key pair file such as smsh-stamp-verifier test_keypair.json, naming the member, never the value', () => {
    const seed = new Uint8Array(32).fill(7);
    const pair = {
      privKeyB64u: b64uEncode(seed),
      pubKeyB64u: b64uEncode(crypto.ed25519PublicKey(seed)),
      note: 'Generated test keypair',
    };
    const error = failure(() => parseKeyFile(JSON.stringify(pair)));
    expect(error).toMatchObject({ code: 'private_key', path: '/privKeyB64u' });
    expect(error.message).toMatch(/holds a private key \(member "privKeyB64u"\)/);
    expect(error.message).not.toContain(pair.privKeyB64u);
    // A JWK with its private member d.
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: pair.pubKeyB64u, d: pair.privKeyB64u };
    expect(failure(() => parseKeyFile(JSON.stringify(jwk)))).toMatchObject({ code: 'private_key', path: '/d' });
  });
});

describe('the /pubkey answer pinned makes the same signer inline key trusted (matched by its bytes)', () => {
  const read = (name: string): string =>
    readFileSync(fileURLToPath(new URL(`../../test-vectors/key-files/${name}`, import.meta.url)), 'utf8');

  it('resolves the sign answer embedded ML-DSA-65 key to the pinned did:hive:typed-demo', () => {
    const pinned = parseKeyFile(read('typed-signer-pubkey.json')).map((entry) => ({
      ...entry,
      status: 'pinned' as const,
    }));
    const answer = JSON.parse(read('typed-signer-sign-answer.json')) as { envelope: { public_key: string } };
    const inline = Uint8Array.from(Buffer.from(answer.envelope.public_key, 'base64'));
    const now = new Date('2026-11-25T00:00:00Z');
    const trusted = findEmbeddedKey(inline, 'ML-DSA-65', createVerifyContext(crypto, { now, pinned }));
    expect(trusted).toMatchObject({ source: 'pinned', key_id: 'did:hive:typed-demo', trust: { status: 'trusted' } });
    const given = findEmbeddedKey(inline, 'ML-DSA-65', createVerifyContext(crypto, { now, advertised: pinned }));
    expect(given).toMatchObject({ source: 'document', trust: { status: 'unpinned' } });
    expect(given.key_id).toBeUndefined();
  });
});
