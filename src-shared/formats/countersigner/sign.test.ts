import { describe, expect, it } from 'vitest';
import { b64Decode, createPortableProvider } from '../../crypto';
import { signCountersigner } from './sign';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(3);

describe('signCountersigner', () => {
  it('places the entry where asked and encodes keys as padded base64', () => {
    const others = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];
    const record = signCountersigner('x', seed, crypto, { others, leafIndex: 0 });
    expect(record).toMatchObject({ leaf_index: 0, tree_size: 3 });
    expect(b64Decode(record['countersigner_public_key_b64'] as string)).toEqual(crypto.ed25519PublicKey(seed));
    expect((record['path'] as string[]).length).toBe(2);
    expect(signCountersigner('x', seed, crypto, { others })['leaf_index']).toBe(2);
  });

  it('refuses bad input', () => {
    expect(() => signCountersigner(5 as never, seed, crypto)).toThrow(TypeError);
    expect(() => signCountersigner('x', seed, crypto, { leafIndex: 1 })).toThrow(RangeError);
    expect(() => signCountersigner('x', seed, crypto, { others: [new Uint8Array(31)] })).toThrow(RangeError);
    expect(() => signCountersigner('x', new Uint8Array(5), crypto)).toThrow(RangeError);
  });
});
