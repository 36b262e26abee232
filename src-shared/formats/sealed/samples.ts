/**
 * Sealed samples: classical samples sealed with AES-256-GCM, a broken ciphertext, a wrong key, a
 * malformed IV and an unsupported cipher. They wrap the classical samples, which come first.
 */
import { b64uEncode, utf8Encode } from '../../crypto';
import type { SecretEntry } from '../../verify/context';
import type { JsonObject } from '../../verify/fields';
import { SAMPLES_SECRET_ID, edited, sampleSeed, type SampleKit } from '../../verify/sample-kit';
import { sealDocument } from './sign';

/**
 * Add the sealed samples and their secret.
 *
 * @param kit - What the samples are added to; it already holds the classical samples.
 */
export function sealedSamples(kit: SampleKit): void {
  const { crypto } = kit;
  const secret: SecretEntry = { key_id: SAMPLES_SECRET_ID, key: sampleSeed(0x1d) };
  kit.addSecret(secret);
  const wrong: SecretEntry = { key_id: SAMPLES_SECRET_ID, key: sampleSeed(0x1e) };
  // One IV per sealing: an IV is never reused with a key, not even in samples.
  let ivCounter = 0;
  const seal = (text: string, key: SecretEntry = secret): JsonObject =>
    sealDocument(utf8Encode(text), key, crypto, {
      iv: Uint8Array.from({ length: 12 }, (_, index) => (index === 11 ? ++ivCounter : 0x5e)),
    });
  const inner = (name: string): string => kit.text(`classical/${name}.json`);
  const valid = seal(inner('valid'));
  kit.add(
    'sealed/valid.json',
    'sealed',
    'PASS',
    'trusted',
    'classical/valid.json sealed with AES-256-GCM under the secret in secrets.json.',
    valid,
  );
  const ciphertext = String(valid['ciphertext']);
  kit.add(
    'sealed/tampered.json',
    'sealed',
    'AUTH_FAILED',
    'not_applicable',
    'One character of the ciphertext was changed; the GCM tag no longer authenticates it.',
    edited(valid, (copy) => (copy['ciphertext'] = (ciphertext.startsWith('A') ? 'B' : 'A') + ciphertext.slice(1))),
  );
  kit.add(
    'sealed/tampered-inside.json',
    'sealed',
    'MISMATCH',
    'unattributed',
    'Opens correctly, but the document inside is classical/tampered.json.',
    seal(inner('tampered')),
  );
  kit.add(
    'sealed/forged.json',
    'sealed',
    'INVALID',
    'unattributed',
    'Opens correctly, but the document inside is classical/forged.json.',
    seal(inner('forged')),
  );
  kit.add(
    'sealed/wrong-key.json',
    'sealed',
    'AUTH_FAILED',
    'not_applicable',
    `Sealed under the id ${SAMPLES_SECRET_ID} with another key than the one secrets.json holds for that id.`,
    seal(inner('valid'), wrong),
  );
  kit.add(
    'sealed/malformed.json',
    'sealed',
    'MALFORMED',
    'not_applicable',
    'The IV is 16 bytes; A256GCM here takes 12.',
    edited(valid, (copy) => (copy['iv'] = b64uEncode(new Uint8Array(16).fill(0x5e)))),
  );
  kit.add(
    'sealed/unsupported.json',
    'sealed',
    'UNSUPPORTED',
    'not_applicable',
    'enc names A128GCM; only A256GCM is opened.',
    edited(valid, (copy) => (copy['enc'] = 'A128GCM')),
  );
}
