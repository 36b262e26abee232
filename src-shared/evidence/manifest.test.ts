import { describe, expect, it } from 'vitest';
import { createPortableProvider, didKeyFromEd25519, utf8Encode } from '../crypto';
import { createVerifyContext } from '../verify/context';
import { BundleError } from './errors';
import {
  BUNDLE_FORMAT,
  checkManifestSignature,
  parseManifest,
  serializeManifest,
  serializeManifestSignature,
  signManifest,
  type Manifest,
} from './manifest';

const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(9);
const publicKey = crypto.ed25519PublicKey(seed);
const KEY_ID = 'did:svc:acme:bundles';

const manifest: Manifest = {
  bundle_format: BUNDLE_FORMAT,
  tenant_id: 'acme',
  generated_at: '2026-11-01T12:00:00.000Z',
  key_id: KEY_ID,
  files: [
    { path: 'receipts/rcp_1.json', sha256: 'a'.repeat(64), bytes: 120 },
    { path: 'keys/service-keys.json', sha256: 'b'.repeat(64), bytes: 90 },
  ],
  counts: { receipts: 1, anchors: 0 },
};

function refusal(text: string): { code: string; path: string | undefined } {
  try {
    parseManifest(utf8Encode(text));
  } catch (error) {
    if (error instanceof BundleError) return { code: error.code, path: error.path };
    throw error;
  }
  throw new Error('expected a refusal');
}

function withChange(change: (value: Record<string, unknown>) => void): string {
  const value = JSON.parse(serializeManifest(manifest)) as Record<string, unknown>;
  change(value);
  return JSON.stringify(value);
}

describe('parseManifest / serializeManifest', () => {
  it('round-trips', () => {
    const text = serializeManifest(manifest);
    expect(parseManifest(utf8Encode(text))).toEqual(manifest);
    expect(text.split('\n')[6]).toBe(
      '    {"path": "receipts/rcp_1.json", "sha256": "' + 'a'.repeat(64) + '", "bytes": 120},',
    );
  });

  it('refuses another bundle format with its own code', () => {
    expect(refusal(withChange((value) => (value.bundle_format = 'evroom.evidence/2')))).toEqual({
      code: 'manifest_unsupported_format',
      path: '/bundle_format',
    });
  });

  it.each([
    [
      'duplicate member (strict parse)',
      serializeManifest(manifest).replace('"tenant_id": "acme",', '"tenant_id": "acme", "tenant_id": "x",'),
      '/tenant_id',
    ],
    ['unknown member', withChange((value) => (value.extra = 1)), '/extra'],
    ['missing member', withChange((value) => delete value.counts), '/counts'],
    ['bad timestamp', withChange((value) => (value.generated_at = '2026-11-01 12:00')), '/generated_at'],
    ['bad key id', withChange((value) => (value.key_id = 'ac me')), '/key_id'],
    ['empty tenant', withChange((value) => (value.tenant_id = '')), '/tenant_id'],
    ['files not an array', withChange((value) => (value.files = {})), '/files'],
    [
      'traversal path',
      withChange((value) => ((value.files as { path: string }[])[0]!.path = '../x.json')),
      '/files/0/path',
    ],
    [
      'lists itself',
      withChange((value) => ((value.files as { path: string }[])[0]!.path = 'manifest.json')),
      '/files/0/path',
    ],
    [
      'directory path',
      withChange((value) => ((value.files as { path: string }[])[0]!.path = 'receipts/')),
      '/files/0/path',
    ],
    [
      'case-folded duplicate path',
      withChange((value) => ((value.files as { path: string }[])[1]!.path = 'RECEIPTS/rcp_1.json')),
      '/files/1/path',
    ],
    [
      'uppercase hex',
      withChange((value) => ((value.files as { sha256: string }[])[0]!.sha256 = 'A'.repeat(64))),
      '/files/0/sha256',
    ],
    ['fractional bytes', serializeManifest(manifest).replace('"bytes": 120', '"bytes": 120.0'), '/files/0/bytes'],
    [
      'negative count',
      withChange((value) => ((value.counts as Record<string, number>).receipts = -1)),
      '/counts/receipts',
    ],
    ['not an object', '[]', ''],
  ])('refuses a manifest with %s (manifest_invalid at its path)', (_name, text, path) => {
    expect(refusal(text)).toEqual({ code: 'manifest_invalid', path });
  });
});

describe('checkManifestSignature', () => {
  const manifestBytes = utf8Encode(serializeManifest(manifest));
  const signatureText = serializeManifestSignature(signManifest(manifestBytes, seed, KEY_ID, crypto));
  const advertised = createVerifyContext(crypto, {
    advertised: [{ key_id: KEY_ID, algorithm: 'Ed25519', public_key: publicKey }],
  });

  it('verifies with an advertised key (trust unpinned) and a pinned key (trusted)', () => {
    const unpinned = checkManifestSignature(manifestBytes, utf8Encode(signatureText), advertised);
    expect(unpinned).toMatchObject({ status: 'valid', key_id: KEY_ID, trust: { status: 'unpinned' } });
    const pinned = createVerifyContext(crypto, {
      pinned: [{ key_id: KEY_ID, algorithm: 'Ed25519', public_key: publicKey, status: 'pinned', label: 'Acme' }],
    });
    expect(checkManifestSignature(manifestBytes, utf8Encode(signatureText), pinned)).toMatchObject({
      status: 'valid',
      trust: { status: 'trusted', label: 'Acme' },
    });
  });

  it('resolves a did:key signer offline', () => {
    const didKey = didKeyFromEd25519(publicKey);
    const text = serializeManifestSignature(signManifest(manifestBytes, seed, didKey, crypto));
    expect(checkManifestSignature(manifestBytes, utf8Encode(text), createVerifyContext(crypto))).toMatchObject({
      status: 'valid',
      trust: { status: 'unpinned' },
    });
  });

  it('says missing, malformed, mismatch, unavailable, unsupported and invalid', () => {
    expect(checkManifestSignature(manifestBytes, undefined, advertised).status).toBe('missing');
    expect(checkManifestSignature(manifestBytes, utf8Encode('{"key_id":1}'), advertised).status).toBe('malformed');
    expect(
      checkManifestSignature(
        manifestBytes,
        utf8Encode(signatureText.replace('"algorithm"', '"x":1,"algorithm"')),
        advertised,
      ).status,
    ).toBe('malformed');
    const other = utf8Encode(serializeManifest({ ...manifest, tenant_id: 'other' }));
    expect(checkManifestSignature(other, utf8Encode(signatureText), advertised).status).toBe('mismatch');
    expect(checkManifestSignature(manifestBytes, utf8Encode(signatureText), createVerifyContext(crypto)).status).toBe(
      'unavailable',
    );
    expect(
      checkManifestSignature(manifestBytes, utf8Encode(signatureText.replace('"Ed25519"', '"ES256"')), advertised)
        .status,
    ).toBe('unsupported');
    const wrongSeed = new Uint8Array(32).fill(10);
    const forged = serializeManifestSignature(signManifest(manifestBytes, wrongSeed, KEY_ID, crypto));
    // PROTOCOL 1: a signature that fails is unattributed, even under a pinned key.
    expect(checkManifestSignature(manifestBytes, utf8Encode(forged), advertised)).toMatchObject({
      status: 'invalid',
      trust: { status: 'unattributed', claimed_key_id: KEY_ID },
    });
    const pinned = createVerifyContext(crypto, { pinned: advertised.advertised });
    expect(checkManifestSignature(manifestBytes, utf8Encode(signatureText), pinned).trust.status).toBe('trusted');
    expect(checkManifestSignature(manifestBytes, utf8Encode(forged), pinned).trust).toEqual({
      status: 'unattributed',
      claimed_key_id: KEY_ID,
      detail: `The document names ${KEY_ID}, but that key did not sign what is here.`,
    });
  });
});
