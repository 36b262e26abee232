import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../crypto';
import {
  createSampleKit,
  edited,
  replaced,
  sampleEd25519Key,
  sampleHash,
  sampleMember,
  sampleSeed,
  type SampleSet,
} from './sample-kit';

const crypto = createPortableProvider();

describe('the sample kit', () => {
  it('adds samples as indented JSON, raw files as given, keys and secrets, and finds earlier samples', () => {
    const set: SampleSet = { files: [], keys: [], secrets: [] };
    const kit = createSampleKit(set, crypto);
    kit.add('a/valid.json', 'classical', 'PASS', 'trusted', 'note', '{"n":1.50}');
    kit.addFile({
      file: 'a/raw.json',
      format: 'unknown',
      expected_status: 'MALFORMED',
      expected_trust: 'not_applicable',
      note: 'raw',
      text: '{"n":1,"n":2}\n',
    });
    kit.addKey(sampleEd25519Key(crypto, 'did:svc:sample', sampleSeed(1), 'signer'));
    kit.addSecret({ key_id: 's', key: sampleSeed(2) });
    expect(kit.text('a/valid.json')).toBe('{\n  "n": 1.50\n}\n');
    expect(kit.text('a/raw.json')).toBe('{"n":1,"n":2}\n');
    expect(set.keys[0]).toMatchObject({ key_id: 'did:svc:sample', label: 'Sample key: signer' });
    expect(set.secrets).toHaveLength(1);
    expect(() => kit.text('b/valid.json')).toThrow(/b\/valid\.json/);
  });

  it('edits copies, and refuses an edit that changes nothing', () => {
    const original = { a: { b: 1 } };
    const copy = edited(original, (value) => (sampleMember(value, 'a')['b'] = 2));
    expect([original.a.b, sampleMember(copy, 'a')['b']]).toEqual([1, 2]);
    expect(replaced('abc', 'b', 'x')).toBe('axc');
    expect(() => replaced('abc', 'z', 'x')).toThrow(/nothing to replace/);
    expect(sampleHash(crypto, 'abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
