import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../../src-shared/crypto';
import { catalogueModules } from '../../src-shared/verify/registry';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { SAMPLES_NOW, SAMPLES_SECRET_ID, buildSamples, sampleOutputs } from './samples';

const crypto = createNodeCryptoProvider();

describe('buildSamples', () => {
  it('makes every format’s samples in the registry’s order, each verifying as index.json says', () => {
    const set = buildSamples();
    const folders = [...new Set(set.files.map((file) => file.file.split('/')[0]))];
    // One folder per issuer; a format only other producers make (no issuers) has one of its own name.
    expect(folders).toEqual(
      catalogueModules().flatMap((module) =>
        module.issuers.length > 0
          ? module.issuers.map((issuer) => issuer.name)
          : module.name === 'report'
            ? []
            : [module.name],
      ),
    );
    const context = { crypto, pinned: set.keys, advertised: [], secrets: set.secrets, now: new Date(SAMPLES_NOW) };
    for (const file of set.files) {
      const report = verifyDocument(utf8Encode(file.text), context);
      expect([file.file, report.format, report.status, report.trust.status]).toEqual([
        file.file,
        file.format,
        file.expected_status,
        file.expected_trust,
      ]);
    }
    expect(set.secrets.map((secret) => secret.key_id)).toEqual([SAMPLES_SECRET_ID]);
  });

  it('is deterministic, and its outputs are the documents plus keys, secrets, index and README', () => {
    const first = sampleOutputs(buildSamples());
    expect(sampleOutputs(buildSamples())).toEqual(first);
    expect(first.slice(-4).map((output) => output.file)).toEqual([
      'keys.json',
      'secrets.json',
      'index.json',
      'README.md',
    ]);
  });
});
