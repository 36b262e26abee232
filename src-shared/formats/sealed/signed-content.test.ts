import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { sealedFormat as MODULE } from '.';
import { isJsonObject } from '../../verify/fields';
import { parseJsonTree, toPlain } from '../../json';
import { sealedSignedContent } from './signed-content';

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

describe('sealedSignedContent', () => {
  it('shows nothing: only the plaintext inside is signed', () => {
    const tree = parseJsonTree(sampleText('sealed/valid.json'));
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    expect(sealedSignedContent({ format: 'sealed', tree, value, crypto })).toEqual([]);
    expect(MODULE.owns('sealed')).toBe(true);
  });
});
