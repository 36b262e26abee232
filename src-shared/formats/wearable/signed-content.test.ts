import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { wearableFormat as MODULE } from '.';
import { isJsonObject } from '../../verify/fields';
import { parseJsonTree, toPlain } from '../../json';
import { wearableSignedContent } from './signed-content';

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

describe('wearableSignedContent', () => {
  it('shows the bytes the valid sample’s signatures cover', () => {
    const text = sampleText('wearable/valid.json');
    const tree = parseJsonTree(text);
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    const format = MODULE.detect(tree) ?? 'unknown';
    expect(MODULE.owns(format)).toBe(true);
    const contents = wearableSignedContent({ format, tree, value, crypto });
    expect(contents).toHaveLength(2);
    expect(contents.map((entry) => entry.sha256)).toEqual([
      JSON.parse(text).signed_body.observation_sha256,
      JSON.parse(text).payload_sha256,
    ]);
  });
});
