import { describe, expect, it } from 'vitest';
import { createPortableProvider } from '../../crypto';
import { createVerifyContext, type SecretEntry } from '../../verify/context';
import { verifyDocument } from '../../verify/verify';
import { signClassical } from '../classical/sign';
import { signEnvelope } from '../envelope/sign';
import { sealDocument } from './sign';

const crypto = createPortableProvider();
const secret: SecretEntry = { key_id: 'vault:k1', key: new Uint8Array(32).fill(5) };
const now = new Date('2026-06-01T00:00:00Z');
const ctx = createVerifyContext(crypto, { now, secrets: [secret] });
const seed = new Uint8Array(32).fill(1);
const classical = signClassical({ sequence: 1, amount: '5.00' }, seed, crypto);

function seal(text: string): string {
  return JSON.stringify(sealDocument(text, secret, crypto));
}

describe('sealed verification', () => {
  it('keeps format sealed, attaches the inner report and adopts its status and trust', () => {
    const pinned = {
      key_id: 'did:svc:a',
      algorithm: 'Ed25519' as const,
      public_key: crypto.ed25519PublicKey(seed),
      label: 'A',
    };
    const report = verifyDocument(seal(classical), { ...ctx, pinned: [pinned] });
    expect(report).toMatchObject({
      format: 'sealed',
      status: 'PASS',
      trust: { status: 'trusted', key_id: 'did:svc:a', label: 'A' },
    });
    expect(report.inner).toMatchObject({ format: 'classical', status: 'PASS' });
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['enc', 'pass'],
      ['decryption', 'pass'],
      ['inner', 'pass'],
    ]);
  });

  it('an inner INDETERMINATE (an envelope with no keys) makes the whole INDETERMINATE', () => {
    const envelope = signEnvelope({ v: 'svc-receipt-v1' }, { service: { key_id: 'did:svc:s', seed } }, crypto);
    const report = verifyDocument(seal(JSON.stringify(envelope)), ctx);
    expect(report.status).toBe('INDETERMINATE');
    expect(report.checks.find((check) => check.id === 'inner')?.status).toBe('unavailable');
  });

  it('matches secrets by exact id', () => {
    const report = verifyDocument(
      seal(classical),
      createVerifyContext(crypto, { now, secrets: [{ ...secret, key_id: 'vault:K1' }] }),
    );
    expect(report.status).toBe('INDETERMINATE');
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['schema', 'pass'],
      ['enc', 'pass'],
      ['decryption', 'unavailable'],
      ['inner', 'unchecked'],
    ]);
  });

  it('a wrong key is AUTH_FAILED and nothing inside is judged', () => {
    const report = verifyDocument(
      seal(classical),
      createVerifyContext(crypto, { now, secrets: [{ ...secret, key: new Uint8Array(32).fill(6) }] }),
    );
    expect(report.status).toBe('AUTH_FAILED');
    expect(report.inner).toBeUndefined();
    expect(report.trust.status).toBe('not_applicable');
  });

  it.each<[string, (doc: Record<string, unknown>) => void, string, string]>([
    ['sealed not true', (doc) => (doc['sealed'] = 'true'), 'unknown_format', ''],
    ['missing iv', (doc) => delete doc['iv'], 'missing_property', '/iv'],
    ['padded tag', (doc) => (doc['tag'] = `${doc['tag'] as string}==`), 'invalid_encoding', '/tag'],
    ['short tag', (doc) => (doc['tag'] = (doc['tag'] as string).slice(0, 16)), 'invalid_encoding', '/tag'],
    ['key id with a space', (doc) => (doc['key_id'] = 'vault k1'), 'invalid_key_id', '/key_id'],
    ['enc not a string', (doc) => (doc['enc'] = 256), 'invalid_type', '/enc'],
    ['extra member', (doc) => (doc['alg'] = 'dir'), 'unknown_property', '/alg'],
    ['empty aad', (doc) => (doc['aad'] = ''), 'invalid_encoding', '/aad'],
  ])('%s is MALFORMED', (_name, change, code, path) => {
    const doc = sealDocument(classical, secret, crypto);
    change(doc);
    const report = verifyDocument(JSON.stringify(doc), ctx);
    expect(report.status).toBe('MALFORMED');
    expect(report.errors.map((error) => [error.code, error.path])).toContainEqual([code, path]);
  });
});
