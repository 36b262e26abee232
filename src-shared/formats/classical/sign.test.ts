import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexEncode } from '../../crypto';
import { signClassical } from './sign';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(1);

describe('signClassical', () => {
  it('writes the members the options ask for', () => {
    const full = JSON.parse(signClassical({ sequence: 3, x: 'y' }, seed, crypto)) as Record<string, unknown>;
    expect(Object.keys(full)).toEqual([
      'alg',
      'public_key_hex',
      'raw_payload',
      'sequence',
      'signature',
      'signed_payload',
    ]);
    expect(full['public_key_hex']).toBe(hexEncode(crypto.ed25519PublicKey(seed)));
    expect(full['sequence']).toBe(3);
    const bare = JSON.parse(signClassical({ x: 'y' }, seed, crypto, { alg: false, rawPayload: false })) as Record<
      string,
      unknown
    >;
    expect(Object.keys(bare)).toEqual(['public_key_hex', 'signature', 'signed_payload']);
  });

  it('is deterministic (Ed25519) and keeps lexemes of a text payload', () => {
    const text = signClassical('{"p":1.50}', seed, crypto);
    expect(text).toBe(signClassical('{"p":1.50}', seed, crypto));
    expect(text).toContain('"signed_payload":{"p":1.50}');
  });

  it('refuses non-object payloads and bad seeds', () => {
    expect(() => signClassical('[1]', seed, crypto)).toThrow(TypeError);
    expect(() => signClassical({ a: 1 }, new Uint8Array(31), crypto)).toThrow(RangeError);
  });
});
