import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { countersignerFormat as MODULE } from '.';
import { isJsonObject } from '../../verify/fields';
import { parseJsonTree, toPlain } from '../../json';
import { countersignerSignedContent } from './signed-content';

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

describe('countersignerSignedContent', () => {
  it('shows the bytes the valid sample’s signatures cover', () => {
    const text = sampleText('countersigner/valid.json');
    const tree = parseJsonTree(text);
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    const format = MODULE.detect(tree) ?? 'unknown';
    expect(MODULE.owns(format)).toBe(true);
    const contents = countersignerSignedContent({ format, tree, value, crypto });
    const [content] = contents;
    expect(contents).toHaveLength(1);
    expect(content?.text).toBe(JSON.parse(text).signed_over_canonical);
  });

  it('rebuilds the signed text of a verify request that leaves it out', () => {
    const text = sampleText('countersigner/valid-verify-request.json');
    const tree = parseJsonTree(text);
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    expect(value['signed_over_canonical']).toBeUndefined();
    const [content] = countersignerSignedContent({ format: 'countersigner', tree, value, crypto });
    expect(content?.label).toBe('canonical text of signed_over');
    expect(content?.text).toMatch(/^\{"countersigner_time":1780315202\.5,"leaf":"[0-9a-f]{64}",/);
  });
});
