import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { countersignerFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { SAMPLES_NOW } from '../../verify/sample-kit';
import { countersignerFacts } from './facts';

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

describe('countersignerFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(countersignerFacts(parseJsonTree(sampleText('countersigner/valid.json')))).toEqual({
      receipt_id: null,
      // Entry 2 of the sample log is countersigned 1.25 s after the samples' instant.
      issued_at: Date.parse(SAMPLES_NOW) + 1250,
      issuer_key_id: 'did:key:z6Mkgd9vC5PoQn4fiePDTQAsha3eT6LgF6tUPzf28iwXLgde',
    });
  });

  it('keeps countersigner_time to the millisecond and refuses implausible instants', () => {
    const at = (time: string): number | null =>
      countersignerFacts(parseJsonTree(`{"signed_over":{"countersigner_time":${time}}}`)).issued_at;
    expect(at('1795636507.5692775')).toBe(1_795_636_507_569);
    expect(at('1795640000')).toBe(1_795_640_000_000);
    expect(at('12')).toBeNull();
    expect(at('"soon"' as string)).toBeNull();
  });

  it('says nothing of a document of another shape', () => {
    expect(countersignerFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
