import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet, SAMPLES_NOW } from '../../verify/sample-kit';
import { profileFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { profileFacts } from './facts';

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

function sampleText(file: string): string {
  const found = samples().files.find((candidate) => candidate.file === file);
  if (found === undefined) throw new Error(`no sample ${file}`);
  return found.text;
}

describe('profileFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(profileFacts(parseJsonTree(sampleText('standard/valid.json')))).toEqual({
      receipt_id: 'rcp_01KT1GW6G0081040G2081040G2',
      issued_at: Date.parse(SAMPLES_NOW),
      issuer_key_id: 'did:svc:evroom:example-k1',
    });
  });

  it('says nothing of a document of another shape', () => {
    expect(profileFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
