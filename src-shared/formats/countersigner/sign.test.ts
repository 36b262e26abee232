import { describe, expect, it } from 'vitest';
import { b64Decode, createPortableProvider, hexEncode, utf8Encode, concatBytes } from '../../crypto';
import { fromPlain, parseJsonTree } from '../../json';
import { auditPath, foldAuditPath, genesisLeaf, logRoot, nodeHash, taggedHash } from './log';
import { countersign, inclusionAnswer, type CountersignedEntry } from './sign';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(3);
const record = fromPlain({ receipt: 'r-1' });

function log(size: number): CountersignedEntry[] {
  const entries: CountersignedEntry[] = [];
  for (let index = 0; index < size; index++) {
    entries.push(
      countersign({ record, operator_signature: `sig ${index}` }, seed, crypto, {
        time: 1_780_000_000 + index / 8,
        previousLeaves: entries.map((entry) => entry.leaf),
      }),
    );
  }
  return entries;
}

describe('countersigner hashes and log', () => {
  it('tags BLAKE3 as tag || 0x00 || bytes', () => {
    expect(taggedHash(crypto, 'ab', 'node')).toBe(
      hexEncode(crypto.blake3(concatBytes(utf8Encode('node'), Uint8Array.of(0), utf8Encode('ab')))),
    );
    expect(genesisLeaf(crypto)).toBe(taggedHash(crypto, new Uint8Array(0), 'genesis'));
    expect(logRoot(crypto, [])).toBe(taggedHash(crypto, '', 'empty'));
  });

  it('promotes an odd node unchanged and folds every path of every size back to the root', () => {
    const leaves = log(7).map((entry) => entry.leaf);
    const [a = '', b = '', c = ''] = leaves;
    expect(logRoot(crypto, [a, b, c])).toBe(nodeHash(crypto, nodeHash(crypto, a, b), c));
    for (let size = 1; size <= 7; size++) {
      for (let index = 0; index < size; index++) {
        const part = leaves.slice(0, size);
        expect(foldAuditPath(crypto, part[index] ?? '', auditPath(crypto, part, index)), `${index} of ${size}`).toBe(
          logRoot(crypto, part),
        );
      }
    }
    expect(() => auditPath(crypto, leaves, 7)).toThrow(RangeError);
  });
});

describe('countersign', () => {
  it('chains entries through prev_leaf and answers as the producer does', () => {
    const [first, second] = log(2);
    if (first === undefined || second === undefined) throw new Error('short log');
    const answer = JSON.parse(second.answer) as Record<string, unknown>;
    expect(answer['seq']).toBe(2);
    expect((answer['signed_over'] as Record<string, unknown>)['prev_leaf']).toBe(first.leaf);
    expect(JSON.parse(first.answer).signed_over.prev_leaf).toBe(genesisLeaf(crypto));
    expect(first.logRootAfter).toBe(first.leaf);
    expect(b64Decode(second.publicKey)).toEqual(crypto.ed25519PublicKey(seed));
    expect(second.answer).toContain('"countersigner_time":1780000000.125,');
    expect(first.canonical).toContain('"countersigner_time":1780000000.0,');
    expect(Object.keys(answer)).toEqual([...Object.keys(answer)].sort());
    const inclusion = JSON.parse(inclusionAnswer(log(3), 3, crypto)) as Record<string, unknown>;
    expect(inclusion['audit_path']).toEqual([['left', expect.stringMatching(/^[0-9a-f]{64}$/)]]);
  });

  it('keeps the record digest of a record as written (Python reads 1.50 as 1.5)', () => {
    const written = countersign({ record: parseJsonTree('{"n":1.50}'), operator_signature: 's' }, seed, crypto, {
      time: 1,
    });
    const plain = countersign({ record: fromPlain({ n: 1.5 }), operator_signature: 's' }, seed, crypto, { time: 1 });
    expect(written.canonical).toBe(plain.canonical);
  });

  it('refuses bad input', () => {
    const options = { time: 1 };
    expect(() => countersign({ record: fromPlain([1]), operator_signature: 's' }, seed, crypto, options)).toThrow(
      TypeError,
    );
    expect(() => countersign({ record, operator_signature: 5 as never }, seed, crypto, options)).toThrow(TypeError);
    expect(() => countersign({ record, operator_signature: 's' }, new Uint8Array(5), crypto, options)).toThrow(
      RangeError,
    );
    expect(() => countersign({ record, operator_signature: 's' }, seed, crypto, { time: Number.NaN })).toThrow(
      RangeError,
    );
    expect(() =>
      countersign({ record, operator_signature: 's' }, seed, crypto, { time: 1, previousLeaves: ['AB'] }),
    ).toThrow(TypeError);
    expect(() => inclusionAnswer(log(2), 3, crypto)).toThrow(RangeError);
  });
});
