import { describe, expect, it } from 'vitest';
import { createPortableProvider, didKeyFromEd25519, hexEncode, utf8Encode } from '../crypto';
import { signClassical } from '../formats/classical/sign';
import { createVerifyContext } from '../verify/context';
import { serializeKeyFile } from '../verify/key-file';
import { checkBundle, type BundleArchiveEntry } from './check-bundle';
import { BUNDLE_FORMAT, serializeManifest, serializeManifestSignature, signManifest } from './manifest';

const crypto = createPortableProvider();
const bundleSeed = new Uint8Array(32).fill(3);
const bundleKeyId = didKeyFromEd25519(crypto.ed25519PublicKey(bundleSeed));
const issuerSeed = new Uint8Array(32).fill(4);

/** A bundle as its files: receipts (classical, self-keyed), keys, manifest and signature. */
function bundleFiles(receiptCount: number): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (let index = 0; index < receiptCount; index += 1) {
    files.set(`receipts/r${index}.json`, utf8Encode(signClassical({ sequence: index, amount: 5 }, issuerSeed, crypto)));
  }
  files.set(
    'keys/service-keys.json',
    utf8Encode(
      serializeKeyFile([
        { key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: crypto.ed25519PublicKey(issuerSeed) },
      ]),
    ),
  );
  const manifestBytes = utf8Encode(
    serializeManifest({
      bundle_format: BUNDLE_FORMAT,
      tenant_id: 'acme',
      generated_at: '2026-11-01T12:00:00.000Z',
      key_id: bundleKeyId,
      files: [...files].map(([path, bytes]) => ({
        path,
        sha256: hexEncode(crypto.sha256(bytes)),
        bytes: bytes.length,
      })),
      counts: { receipts: receiptCount },
    }),
  );
  files.set('manifest.json', manifestBytes);
  files.set(
    'manifest.sig',
    utf8Encode(serializeManifestSignature(signManifest(manifestBytes, bundleSeed, bundleKeyId, crypto))),
  );
  return files;
}

function entries(files: Map<string, Uint8Array>, directories: string[] = []): BundleArchiveEntry[] {
  return [
    ...directories.map((name) => ({ name, directory: true, read: async () => new Uint8Array(0) })),
    ...[...files].map(([name, bytes]) => ({ name, directory: false, read: async () => bytes })),
  ];
}

const context = createVerifyContext(crypto, { now: new Date('2026-11-02T00:00:00Z') });

describe('checkBundle', () => {
  it('passes a whole bundle: manifest signature valid by an unknown signer, every receipt PASS', async () => {
    const progress: number[] = [];
    const result = await checkBundle(entries(bundleFiles(3), ['receipts/', 'keys/']), context, {
      onProgress: (event) => progress.push(event.done),
    });
    expect(result.status).toBe('clean');
    expect(result.findings).toEqual([]);
    expect(result.signature).toMatchObject({ status: 'valid', key_id: bundleKeyId, trust: { status: 'unpinned' } });
    expect(result.counts).toMatchObject({ files: 6, receipts: 3, byStatus: { PASS: 3 }, advertisedKeys: 1 });
    expect(result.manifest).toMatchObject({ tenant_id: 'acme', files: 4 });
    expect(result.receipts.map((receipt) => receipt.path)).toEqual([
      'receipts/r0.json',
      'receipts/r1.json',
      'receipts/r2.json',
    ]);
    expect(progress.at(-1)).toBe(6);
  });

  it('reports a tampered receipt twice: it differs from the manifest and it no longer verifies', async () => {
    const files = bundleFiles(2);
    const text = new TextDecoder().decode(files.get('receipts/r1.json'));
    files.set('receipts/r1.json', utf8Encode(text.replaceAll('"amount":5', '"amount":6')));
    const result = await checkBundle(entries(files), context);
    expect(result.status).toBe('findings');
    expect(result.findings.map((finding) => [finding.code, finding.path])).toEqual([
      ['receipt_not_pass', 'receipts/r1.json'],
      ['file_mismatch', 'receipts/r1.json'],
    ]);
    expect(result.counts.byStatus).toEqual({ PASS: 1, MISMATCH: 1 });
    // Reports not PASS come first, so they are never lost below the PASS ones.
    expect(result.receipts.map((receipt) => receipt.path)).toEqual(['receipts/r1.json', 'receipts/r0.json']);
  });

  it('reports missing and extra files, a forged manifest signature and a count that disagrees', async () => {
    const files = bundleFiles(2);
    files.delete('receipts/r0.json');
    files.set('notes.txt', utf8Encode('hello'));
    const forged = serializeManifestSignature(
      signManifest(files.get('manifest.json')!, issuerSeed, bundleKeyId, crypto),
    );
    files.set('manifest.sig', utf8Encode(forged));
    const result = await checkBundle(entries(files), context);
    expect(result.findings.map((finding) => finding.code).sort()).toEqual(
      ['file_extra', 'file_missing', 'manifest_signature_invalid', 'unexpected_file'].sort(),
    );
  });

  it('uses a pinned key for the manifest signature (trusted) and refuses nothing else because of it', async () => {
    const pinned = createVerifyContext(crypto, {
      pinned: [
        {
          key_id: bundleKeyId,
          algorithm: 'Ed25519',
          public_key: crypto.ed25519PublicKey(bundleSeed),
          status: 'pinned',
        },
      ],
    });
    const result = await checkBundle(entries(bundleFiles(1)), pinned);
    expect(result.signature?.trust.status).toBe('trusted');
  });

  it('does not use a keys file that gives a trusted or given key_id another key, as one naming a key twice', async () => {
    const otherKey = crypto.ed25519PublicKey(new Uint8Array(32).fill(5));
    const cases: [string, ReturnType<typeof createVerifyContext>][] = [
      [
        'the trusted keys',
        createVerifyContext(crypto, {
          pinned: [{ key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: otherKey, status: 'pinned' }],
        }),
      ],
      [
        'the keys given',
        createVerifyContext(crypto, {
          advertised: [{ key_id: 'did:svc:acme:k1', algorithm: 'Ed25519', public_key: otherKey }],
        }),
      ],
    ];
    for (const [source, conflicting] of cases) {
      const result = await checkBundle(entries(bundleFiles(1)), conflicting);
      expect(result.findings).toEqual([
        {
          code: 'keys_invalid',
          path: 'keys/service-keys.json',
          message: `The key file cannot be used at /keys/0/public_key: Key id "did:svc:acme:k1" names different keys in ${source} and in keys/service-keys.json; one key id must name one key.`,
        },
      ]);
      expect(result.counts.advertisedKeys).toBe(0);
    }
    // The same key given again is no conflict.
    const same = createVerifyContext(crypto, {
      pinned: [
        {
          key_id: 'did:svc:acme:k1',
          algorithm: 'Ed25519',
          public_key: crypto.ed25519PublicKey(issuerSeed),
          status: 'pinned',
        },
      ],
    });
    const result = await checkBundle(entries(bundleFiles(1)), same);
    expect(result.findings).toEqual([]);
    expect(result.counts.advertisedKeys).toBe(1);
  });

  it.each([
    ['no manifest', (files: Map<string, Uint8Array>) => files.delete('manifest.json'), 'manifest_missing'],
    [
      'a manifest that is not strict JSON',
      (files: Map<string, Uint8Array>) => files.set('manifest.json', utf8Encode('{"a":1,"a":2}')),
      'manifest_invalid',
    ],
    [
      'a traversal name',
      (files: Map<string, Uint8Array>) => files.set('../evil.json', utf8Encode('{}')),
      'zip_path_traversal',
    ],
    [
      'a case-folded duplicate',
      (files: Map<string, Uint8Array>) => files.set('RECEIPTS/r0.json', utf8Encode('{}')),
      'zip_duplicate_name',
    ],
  ])('refuses a bundle with %s, verifying nothing', async (_name, change, code) => {
    const files = bundleFiles(1);
    change(files);
    const result = await checkBundle(entries(files), context);
    expect(result.status).toBe('refused');
    expect(result.refusal?.code).toBe(code);
    expect(result.counts.receipts).toBe(0);
  });

  it('refuses more entries or bytes than the limits allow', async () => {
    expect((await checkBundle(entries(bundleFiles(3)), context, { limits: { maxEntries: 5 } })).refusal?.code).toBe(
      'zip_too_many_entries',
    );
    expect(
      (await checkBundle(entries(bundleFiles(1)), context, { limits: { maxEntryBytes: 100 } })).refusal?.code,
    ).toBe('zip_entry_too_large');
  });

  it('refuses a declared zip bomb before reading anything', async () => {
    let reads = 0;
    const bomb = [
      ...entries(bundleFiles(1)),
      {
        name: 'receipts/bomb.json',
        directory: false,
        declared: { compressedSize: 1000, uncompressedSize: 1_000_000 },
        read: async () => {
          reads += 1;
          return new Uint8Array(1_000_000);
        },
      },
    ];
    const result = await checkBundle(bomb, context);
    expect(result.refusal).toMatchObject({ code: 'zip_ratio_exceeded', entry: 'receipts/bomb.json' });
    expect(reads).toBe(0);
    const declaredLarge = [
      {
        name: 'manifest.json',
        directory: false,
        declared: { compressedSize: 10, uncompressedSize: 10 },
        read: async () => new Uint8Array(0),
      },
    ];
    expect((await checkBundle(declaredLarge, context, { limits: { maxEntryBytes: 5 } })).refusal?.code).toBe(
      'zip_entry_too_large',
    );
  });

  it('refuses bad arguments with TypeError and RangeError', async () => {
    await expect(checkBundle('x' as never, context)).rejects.toThrow(TypeError);
    await expect(checkBundle([], context, { limits: { maxEntries: 0 } })).rejects.toThrow(RangeError);
  });
});
