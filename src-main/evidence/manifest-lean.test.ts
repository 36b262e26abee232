import { describe, expect, it } from 'vitest';
import { BundleError } from './errors';
import { BUNDLE_FORMAT, parseManifest, serializeManifest, type Manifest } from './manifest';
import { listedDigestHex, parseManifestCompact, type CompactManifest } from './manifest-lean';

const manifest: Manifest = {
  bundle_format: BUNDLE_FORMAT,
  tenant_id: 'acme',
  generated_at: '2026-11-01T12:00:00.000Z',
  key_id: 'did:svc:acme:bundles',
  files: [
    { path: 'receipts/rcp_1.json', sha256: '0123456789abcdef'.repeat(4), bytes: 120 },
    { path: 'receipts/rcp_2.json', sha256: 'fedcba9876543210'.repeat(4), bytes: 0 },
    { path: 'anchors/b1.json', sha256: 'a'.repeat(64), bytes: 9_007_199_254_740_991 },
    { path: 'keys/service-keys.json', sha256: 'b'.repeat(64), bytes: 90 },
  ],
  counts: { receipts: 2, anchors: 1 },
};

/** What a parse answered, comparable across the two parsers: the manifest, or the error's every detail. */
type Outcome =
  | { ok: Manifest }
  | { error: { name: string; code: string; message: string; path: string | undefined; entry: string | undefined } };

function attempt(parse: () => Manifest): Outcome {
  try {
    return { ok: parse() };
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    return {
      error: { name: error.name, code: error.code, message: error.message, path: error.path, entry: error.entry },
    };
  }
}

function expanded(compact: CompactManifest): Manifest {
  const { header, files } = compact;
  return {
    ...header,
    files: files.paths.map((path, index) => ({
      path,
      sha256: listedDigestHex(files, index),
      bytes: files.sizes[index] as number,
    })),
  };
}

function bytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Both parsers on the same bytes: the same manifest or the same error. */
function expectSameOutcome(text: string): Outcome {
  const bytes = bytesOf(text);
  const strict = attempt(() => parseManifest(bytes));
  const compact = attempt(() => expanded(parseManifestCompact(bytes)));
  expect(compact).toEqual(strict);
  return strict;
}

describe('parseManifestCompact', () => {
  it('reads a written manifest leanly into the same manifest as the strict parse', () => {
    const text = serializeManifest(manifest);
    const compact = parseManifestCompact(bytesOf(text));
    expect(compact.lean).toBe(true);
    expect(compact.files.count).toBe(4);
    expect(compact.files.digests.length).toBe(4 * 32);
    expect(expanded(compact)).toEqual(parseManifest(bytesOf(text)));
    expect(expanded(compact)).toEqual(manifest);
  });

  it('reads leanly without whitespace, with other whitespace, and with no files', () => {
    const dense = JSON.stringify(manifest);
    expect(parseManifestCompact(bytesOf(dense)).lean).toBe(true);
    expect(expectSameOutcome(dense)).toEqual({ ok: manifest });
    const spaced = JSON.stringify(manifest, null, '\t').replace(/\n/g, '\r\n \t').replace(/: /g, ' \t:\r\n');
    expect(parseManifestCompact(bytesOf(spaced)).lean).toBe(true);
    expect(expectSameOutcome(spaced)).toEqual({ ok: manifest });
    const empty = serializeManifest({ ...manifest, files: [] });
    expect(parseManifestCompact(bytesOf(empty)).lean).toBe(true);
    expect(expectSameOutcome(empty)).toEqual({ ok: { ...manifest, files: [] } });
  });

  it('hands other shapes of valid manifests to the strict parse and answers the same', () => {
    const base = serializeManifest(manifest);
    const variants = [
      // Members of a file in another order.
      base
        .replace('{"path": "receipts/rcp_1.json", "sha256": "0123456789abcdef', '{"sha256": "0123456789abcdef')
        .replace('"bytes": 120}', '"bytes": 120, "path": "receipts/rcp_1.json"}'),
      // An escaped character in a path, and a non-ASCII path.
      base.replace('"receipts/rcp_1.json"', '"receipts\\/rcp_1.json"'),
      base.replace('"receipts/rcp_2.json"', '"receipts/r\u00e9\u00e7u.json"'),
      // files after counts.
      `{"bundle_format": "${BUNDLE_FORMAT}", "tenant_id": "acme", "generated_at": "2026-11-01T12:00:00.000Z", "key_id": "did:svc:acme:bundles", "counts": {"receipts": 2, "anchors": 1}, "files": ${JSON.stringify(manifest.files)}}`,
    ];
    for (const text of variants) {
      const outcome = expectSameOutcome(text);
      expect('ok' in outcome).toBe(true);
    }
    expect(parseManifestCompact(bytesOf(variants[1] as string)).lean).toBe(false);
  });

  it('refuses bad manifests with exactly the strict parse error and its JSON Pointer', () => {
    const base = serializeManifest(manifest);
    const one =
      '{"path": "receipts/rcp_1.json", "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "bytes": 120}';
    const bad = [
      base.replace('"receipts/rcp_2.json"', '"receipts/rcp_1.json"'),
      base.replace('"receipts/rcp_2.json"', '"RECEIPTS/RCP_1.JSON"'),
      base.replace('"receipts/rcp_2.json"', '"receipts/rcp_1.json."'),
      base.replace('"0123456789abcdef', '"0123456789ABCDEF'),
      base.replace('"0123456789abcdef', '"123456789abcdef'),
      base.replace('"bytes": 120', '"bytes": -1'),
      base.replace('"bytes": 120', '"bytes": 1.0'),
      base.replace('"bytes": 120', '"bytes": 1e3'),
      base.replace('"bytes": 120', '"bytes": 0120'),
      base.replace('"bytes": 120', '"bytes": 9007199254740992'),
      base.replace('"bytes": 120', '"bytes": 12345678901234567'),
      base.replace('"bytes": 120', '"bytes": "120"'),
      base.replace('"bytes": 120', '"bytes": 120, "mode": 1'),
      base.replace('"bytes": 120', '"bytes": 120, "bytes": 120'),
      base.replace(', "bytes": 120', ''),
      base.replace('"receipts/rcp_1.json"', '"../rcp_1.json"'),
      base.replace('"receipts/rcp_1.json"', '"receipts\\\\rcp_1.json"'),
      base.replace('"receipts/rcp_1.json"', '"/receipts/rcp_1.json"'),
      base.replace('"receipts/rcp_1.json"', '"C:receipts/rcp_1.json"'),
      base.replace('"receipts/rcp_1.json"', '"receipts//rcp_1.json"'),
      base.replace('"receipts/rcp_1.json"', '"receipts/"'),
      base.replace('"receipts/rcp_1.json"', '"manifest.json"'),
      base.replace('"receipts/rcp_1.json"', '"manifest.sig"'),
      base.replace('"receipts/rcp_1.json"', '""'),
      base.replace('"receipts/rcp_1.json"', '"receipts/\u0001.json"'),
      base.replace('"receipts/rcp_1.json"', '"receipts/\\u0001.json"'),
      base.replace('"receipts/rcp_1.json"', `"${'a'.repeat(1025)}"`),
      base.replace('"receipts/rcp_1.json"', '12'),
      base.replace(/\n {2}\],/, ',\n  ],'),
      base.replace(/\n {2}\],/, '\n  ,],'),
      base.replace('"tenant_id": "acme"', '"tenant_id": ""'),
      base.replace('"generated_at": "2026-11-01T12:00:00.000Z"', '"generated_at": "yesterday"'),
      base.replace(`"${BUNDLE_FORMAT}"`, '"evroom.evidence/2"'),
      base.replace('"counts": {"receipts":2,"anchors":1}', '"counts": {"receipts": -2}'),
      base.replace('"counts": {"receipts":2,"anchors":1}', '"counts": {"receipts": 2,}'),
      base.replace('"counts": {"receipts":2,"anchors":1}', `"counts": {}, "files": [${one}]`),
      base.replace('"files": [', '"files": "x", "other": ['),
      base.replace('"files": [', '"filez": ['),
      `${base}x`,
      `\ufeff${base}`,
      base.slice(0, base.length - 4),
      base.slice(0, base.indexOf('"bytes": 90')),
      '[]',
      '',
      `{"files": [${one}]}`,
    ];
    for (const text of bad) {
      const outcome = expectSameOutcome(text);
      expect('error' in outcome, text).toBe(true);
    }
  });

  it('agrees with the strict parse on every single-byte change of a manifest', () => {
    const base = bytesOf(serializeManifest(manifest));
    // A fixed sequence (no randomness): every position, with a few replacement bytes each.
    const replacements = [0x20, 0x22, 0x2c, 0x2f, 0x30, 0x39, 0x41, 0x5c, 0x5d, 0x7d, 0x00, 0xc3];
    let refused = 0;
    for (let position = 0; position < base.length; position += 1) {
      const replacement = replacements[position % replacements.length] as number;
      if (base[position] === replacement) continue;
      const changed = new Uint8Array(base);
      changed[position] = replacement;
      const strict = attempt(() => parseManifest(changed));
      const compact = attempt(() => expanded(parseManifestCompact(changed)));
      expect(compact, `byte ${position} set to ${replacement}`).toEqual(strict);
      if ('error' in strict) refused += 1;
    }
    expect(refused).toBeGreaterThan(base.length / 2);
  });

  it('reads a long list (beyond its first allocation) leanly and exactly', () => {
    const files = Array.from({ length: 5000 }, (_, index) => ({
      path: `receipts/rcp_${index}.json`,
      sha256: index.toString(16).padStart(64, 'f'),
      bytes: index * 7,
    }));
    const text = serializeManifest({ ...manifest, files });
    const compact = parseManifestCompact(bytesOf(text));
    expect(compact.lean).toBe(true);
    expect(compact.files.count).toBe(5000);
    expect(expanded(compact)).toEqual({ ...manifest, files });
    // The last item listed twice: the strict parse's duplicate error, at the same pointer.
    const duplicated = text.replace('"receipts/rcp_4999.json"', '"receipts/rcp_0.json"');
    expect(expectSameOutcome(duplicated)).toMatchObject({
      error: { code: 'manifest_invalid', path: '/files/4999/path' },
    });
  });

  it('checks its argument', () => {
    expect(() => parseManifestCompact('{}' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
