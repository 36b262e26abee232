import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import { utf8SignedBytes } from './signed-bytes';

describe('utf8SignedBytes', () => {
  it('gives the SHA-256 of the UTF-8 bytes', () => {
    const entry = utf8SignedBytes(createPortableProvider(), 'label', 'abc', 'coverage');
    expect(entry).toEqual({
      label: 'label',
      text: 'abc',
      encoding: 'utf8',
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      coverage: 'coverage',
    });
  });
});
