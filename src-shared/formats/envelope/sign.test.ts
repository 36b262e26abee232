import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { signEnvelope } from './sign';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(9);

describe('signEnvelope', () => {
  it('replaces existing signatures and signs only the given roles', () => {
    const signed = signEnvelope(
      { v: 'svc-receipt-v1', signatures: { old: 1 } },
      { operator: { key_id: 'did:svc:o', seed } },
      crypto,
    );
    expect(Object.keys(signed)).toEqual(['v', 'signatures']);
    expect(Object.keys(signed['signatures'] as object)).toEqual(['operator']);
  });

  it('refuses a bad envelope, key id or seed', () => {
    expect(() => signEnvelope([] as never, {}, crypto)).toThrow(TypeError);
    expect(() => signEnvelope({ v: 'svc-receipt-v1' }, { service: { key_id: 'k 1', seed } }, crypto)).toThrow(
      TypeError,
    );
    expect(() =>
      signEnvelope({ v: 'svc-receipt-v1' }, { service: { key_id: 'did:svc:s', seed: new Uint8Array(3) } }, crypto),
    ).toThrow(RangeError);
  });
});
