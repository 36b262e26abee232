import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { wearableFormat as MODULE } from '.';
import { verifyDocument } from '../../verify/verify';
import { wearableSamples } from './samples';

const crypto = createPortableProvider();

/** Every sample up to and including this format's (sealed samples wrap classical ones). */
function samples(): SampleSet {
  const set: SampleSet = { files: [], keys: [], secrets: [] };
  const kit = createSampleKit(set, crypto);
  for (const module of catalogueModules()) {
    module.samples(kit);
    if (module === MODULE) break;
  }
  return set;
}

const ISSUERS = ['wearable'];

describe('wearableSamples', () => {
  it('adds a valid, tampered, forged and malformed sample per issuer, each verifying as it says', () => {
    expect(MODULE.samples).toBe(wearableSamples);
    const set = samples();
    const own = set.files.filter((file) => ISSUERS.includes(file.file.split('/')[0] ?? ''));
    for (const folder of ISSUERS) {
      for (const kind of ['valid', 'tampered', 'forged', 'malformed'])
        expect(
          own.some((file) => file.file === `${folder}/${kind}.json`),
          `${folder}/${kind}`,
        ).toBe(true);
    }
    const context = {
      crypto,
      pinned: set.keys,
      advertised: [],
      secrets: set.secrets,
      now: new Date('2026-06-01T12:00:00.000Z'),
    };
    for (const file of own) {
      const report = verifyDocument(file.text, context);
      expect([file.file, report.format, report.status, report.trust.status]).toEqual([
        file.file,
        file.format,
        file.expected_status,
        file.expected_trust,
      ]);
    }
  });
});
