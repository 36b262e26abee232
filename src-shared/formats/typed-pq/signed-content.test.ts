import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPortableProvider, hexDecode, hexEncode } from '../../crypto';
import { catalogueModules } from '../../verify/registry';
import { createSampleKit, type SampleSet } from '../../verify/sample-kit';
import { typedPqFormat as MODULE } from '.';
import { isJsonObject, type JsonObject } from '../../verify/fields';
import { parseJsonTree, toPlain } from '../../json';
import { typedPqSignedContent } from './signed-content';

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

describe('typedPqSignedContent', () => {
  it('shows the bytes the valid sample’s signatures cover', () => {
    const text = sampleText('typed-pq/valid.json');
    const tree = parseJsonTree(text);
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    const format = MODULE.detect(tree) ?? 'unknown';
    expect(MODULE.owns(format)).toBe(true);
    const contents = typedPqSignedContent({ format, tree, value, crypto });
    expect(contents.map((content) => content.encoding)).toEqual(['utf8', 'hex']);
    const envelope = (JSON.parse(text) as { envelope: Record<string, string> }).envelope;
    const [base, preimage] = contents;
    expect(base?.text).toBe(
      `{"object":"afir.attestation","public_key":"${envelope['public_key']}","sig_scheme":"ml-dsa-65","version":"1.0.0-typed-pq"}`,
    );
    expect(preimage?.text).toBe(
      base?.sha256 + (envelope['agg_root'] as string) + (envelope['policy_digest'] as string),
    );
    // For the SHA-256 suite, the preimage's SHA-256 is the signed payload_digest.
    expect(preimage?.sha256).toBe(envelope['payload_digest']);
  });

  it('adds the temporal slot, and hashes with the suite named', () => {
    const text = readFileSync(
      fileURLToPath(new URL('../../../test-vectors/typed-pq/sha384-temporal-merkle-valid.json', import.meta.url)),
      'utf8',
    );
    const tree = parseJsonTree(text);
    const value = toPlain(tree);
    if (!isJsonObject(value)) throw new Error('not an object');
    const [, preimage] = typedPqSignedContent({ format: 'typed-pq', tree, value, crypto });
    expect(preimage?.label).toContain('H(temporal)');
    expect(preimage?.text.length).toBe(4 * 96);
    const envelope = (JSON.parse(text) as { envelope: Record<string, string> }).envelope;
    expect(hexEncode(crypto.sha384(hexDecode(preimage?.text ?? '')))).toBe(envelope['payload_digest']);
    expect(typedPqSignedContent({ format: 'typed-pq', tree, value: { envelope: {} }, crypto })).toEqual([]);
    // The suite's name is read case-insensitively, as the verifier and the typed signer read it.
    const upper: JsonObject = { envelope: { ...(value['envelope'] as JsonObject), hash_suite: 'SHA-384' } };
    const [, upperPreimage] = typedPqSignedContent({ format: 'typed-pq', tree, value: upper, crypto });
    expect(upperPreimage?.text).toBe(preimage?.text);
  });
});
