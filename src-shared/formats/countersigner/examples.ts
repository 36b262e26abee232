/**
 * The countersigner's worked example of docs/protocol.md: entry 2 of a three-entry log, as the
 * inclusion answer, with every intermediate value a reader can recompute.
 */
import type { CryptoProvider } from '../../crypto/provider';
import { fromPlain } from '../../json';
import type { JsonValue } from '../../json/types';
import { pythonJsonDumps } from '../../json/python-dumps';
import { genesisLeaf, leafText, nodeHash, taggedHash } from './log';
import { countersign, inclusionAnswer, type CountersignedEntry } from './sign';

/** The worked example: the document and the values it is made of. */
export interface CountersignerWorkedExample {
  /** The inclusion answer of entry 2, as compact JSON text. */
  document: string;
  values: { label: string; value: string }[];
}

/**
 * Build the worked example (seed 32 × 0x22, fixed times).
 *
 * @param crypto - The provider.
 * @returns The example.
 */
export function countersignerWorkedExample(crypto: CryptoProvider): CountersignerWorkedExample {
  const seed = new Uint8Array(32).fill(0x22);
  const records: JsonValue[] = [
    { receipt: 'rcp_01KT1GW6G0040G2081040G2080', status: 'issued' },
    { holder: 'Zoë', receipt: 'rcp_01KT1GW6G0040G2081040G2081', status: 'issued' },
    { receipt: 'rcp_01KT1GW6G0040G2081040G2082', status: 'issued' },
  ];
  const log: CountersignedEntry[] = [];
  records.forEach((record, index) => {
    log.push(
      countersign(
        {
          record: fromPlain(record),
          operator_signature: `operator signature ${index + 1}`,
          operator_signature_scheme: 'ml-dsa-65',
        },
        seed,
        crypto,
        { time: 1_780_315_200.5 + index, previousLeaves: log.map((entry) => entry.leaf) },
      ),
    );
  });
  const [first, second, third] = log;
  if (first === undefined || second === undefined || third === undefined) throw new Error('short log');
  const record = pythonJsonDumps(fromPlain(records[1] ?? {}));
  const parts = {
    seq: '2',
    prev_leaf: first.leaf,
    record_digest: taggedHash(crypto, record, 'record'),
    countersigner_time: '1780315201.5',
    operator_signature_digest: taggedHash(crypto, 'operator signature 2', 'opsig'),
  };
  return {
    document: inclusionAnswer(log, 2, crypto),
    values: [
      { label: 'C(record)', value: record },
      { label: 'record_digest', value: parts.record_digest },
      { label: 'operator_signature_digest', value: parts.operator_signature_digest },
      { label: 'genesis leaf', value: genesisLeaf(crypto) },
      { label: 'leaf 1 (prev_leaf)', value: first.leaf },
      { label: 'leaf text', value: leafText(parts) },
      { label: 'leaf 2', value: second.leaf },
      { label: 'leaf 3', value: third.leaf },
      { label: 'node(leaf 1, leaf 2)', value: nodeHash(crypto, first.leaf, second.leaf) },
      { label: 'root', value: nodeHash(crypto, nodeHash(crypto, first.leaf, second.leaf), third.leaf) },
    ],
  };
}
