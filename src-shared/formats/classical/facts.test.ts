import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { classicalFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { classicalFacts } from './facts';

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

describe('classicalFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(classicalFacts(parseJsonTree(sampleText('classical/valid.json')))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: 'did:key:z6MktULudTtAsAhRegYPiZ6631RV3viv12qd4GQF8z1xB22S',
    });
  });

  it('says nothing of a document of another shape', () => {
    expect(classicalFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
