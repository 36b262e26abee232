import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { createVerifyContext } from '../../verify/context';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { verifyDocument } from '../../verify/verify';
import { sigrChainFormat as MODULE } from '.';

const crypto = createPortableProvider();

function samples(): SampleSet {
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, crypto);
  for (const module of catalogueModules()) {
    module.samples(kit);
    if (module === MODULE) break;
  }
  return set;
}

describe('sigrChainSamples', () => {
  it('adds samples that verify as they say with keys.json pinned', () => {
    const set = samples();
    const own = set.files.filter((file) => file.file.startsWith('sigr-chain/'));
    expect(own.map((file) => file.file)).toEqual([
      'sigr-chain/valid.json',
      'sigr-chain/valid-sha384.json',
      'sigr-chain/tampered.json',
      'sigr-chain/forged.json',
      'sigr-chain/malformed.json',
      'sigr-chain/unsupported.json',
    ]);
    const ctx = createVerifyContext(crypto, {
      pinned: set.keys.map((entry) => ({ ...entry, status: 'pinned' as const })),
      now: new Date('2026-06-01T12:00:00.000Z'),
    });
    for (const file of own) {
      const report = verifyDocument(file.text, ctx);
      expect([file.file, report.format, report.status, report.trust.status]).toEqual([
        file.file,
        file.format,
        file.expected_status,
        file.expected_trust,
      ]);
    }
  });
});
