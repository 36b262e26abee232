import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { typedPqFormat as MODULE } from '.';
import { parseJsonTree } from '../../json';
import { typedPqFacts } from './facts';

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

describe('typedPqFacts', () => {
  it('reads what the valid sample says of itself, from its tree', () => {
    expect(typedPqFacts(parseJsonTree(sampleText('typed-pq/valid.json')))).toEqual({
      receipt_id: (JSON.parse(sampleText('typed-pq/valid.json')) as { envelope: { payload_digest: string } }).envelope
        .payload_digest,
      issued_at: Date.parse('2026-05-01T12:00:00.000Z'),
      issuer_key_id: null,
    });
  });

  it('reads a bare envelope and a producer sign answer the same way', () => {
    const answer = readFileSync(
      fileURLToPath(new URL('../../../test-vectors/typed-pq/linear-sign-answer-valid.json', import.meta.url)),
      'utf8',
    );
    const envelope = (JSON.parse(answer) as { envelope: { payload_digest: string; issued_at: string } }).envelope;
    const expected = {
      receipt_id: envelope.payload_digest,
      issued_at: Date.parse(envelope.issued_at),
      issuer_key_id: null,
    };
    expect(typedPqFacts(parseJsonTree(answer))).toEqual(expected);
    expect(typedPqFacts(parseJsonTree(JSON.stringify(envelope)))).toEqual(expected);
  });

  it('says nothing of a document of another shape', () => {
    expect(typedPqFacts(parseJsonTree('{"a":[1,2]}'))).toEqual({
      receipt_id: null,
      issued_at: null,
      issuer_key_id: null,
    });
  });
});
