/**
 * `npx tsx bench/encoding.ts` — the byte encodings of src-shared/crypto/encoding.ts beside Node's
 * Buffer (the raw primitive: native code the isomorphic layer cannot use).
 *
 * Rows: base64url of a 64-byte signature and base64 of a 32-byte key (what verification decodes
 * per document; the module's table-driven codec), a did:key (base58btc; @scure/base), and 12 MiB
 * of base64url (a sealed ciphertext or a bundle sent over IPC); beside the module's rows,
 * @scure/base's own base64url at both sizes, which the module keeps only as the reference its
 * tests hold it to (why: src-shared/crypto/encoding.ts).
 *
 * Options: --quick (1 MiB instead of 12, one round), --rounds N (default 5).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { base64urlnopad } from '@scure/base';
import {
  b64Decode,
  b64Encode,
  b64uDecode,
  b64uEncode,
  didKeyFromEd25519,
  ed25519FromDidKey,
} from '../src-shared/crypto';
import { bestRate, formatTable, type Measurement } from './harness';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, rounds: { type: 'string' } },
});
const rounds = Number(values.rounds ?? (values.quick ? 1 : 5));
const bulkBytes = (values.quick ? 1 : 12) * 1024 * 1024;

const signature = new Uint8Array(randomBytes(64));
const signatureText = b64uEncode(signature);
const key = new Uint8Array(randomBytes(32));
const keyText = b64Encode(key);
const did = didKeyFromEd25519(key);
const bulk = new Uint8Array(randomBytes(bulkBytes));
const bulkText = Buffer.from(bulk).toString('base64url');

const rows: Measurement[] = [];
function row(name: string, operations: number, work: () => void, raw?: Measurement): Measurement {
  const rate = bestRate(operations, rounds, work);
  const measured: Measurement = raw ? { name, rate, rawOf: raw.name, ratio: rate / raw.rate } : { name, rate };
  rows.push(measured);
  return measured;
}

const small = 200_000;
const rawSignature = row('raw Buffer base64url decode, 64 bytes', small, () => {
  for (let index = 0; index < small; index++) Buffer.from(signatureText, 'base64url');
});
row(
  'b64uDecode, 64 bytes',
  small,
  () => {
    for (let index = 0; index < small; index++) b64uDecode(signatureText);
  },
  rawSignature,
);
row(
  '@scure/base alone decode, 64 bytes',
  small,
  () => {
    for (let index = 0; index < small; index++) base64urlnopad.decode(signatureText);
  },
  rawSignature,
);
const rawEncode = row('raw Buffer base64url encode, 64 bytes', small, () => {
  for (let index = 0; index < small; index++) Buffer.from(signature.buffer, 0, 64).toString('base64url');
});
row(
  'b64uEncode, 64 bytes',
  small,
  () => {
    for (let index = 0; index < small; index++) b64uEncode(signature);
  },
  rawEncode,
);
const rawKey = row('raw Buffer base64 decode, 32 bytes', small, () => {
  for (let index = 0; index < small; index++) Buffer.from(keyText, 'base64');
});
row(
  'b64Decode, 32 bytes',
  small,
  () => {
    for (let index = 0; index < small; index++) b64Decode(keyText);
  },
  rawKey,
);
const dids = 50_000;
row('ed25519FromDidKey (base58btc)', dids, () => {
  for (let index = 0; index < dids; index++) ed25519FromDidKey(did);
});
const rawBulk = row(`raw Buffer base64url decode, ${bulkBytes >> 20} MiB (per MiB)`, bulkBytes / 2 ** 20, () => {
  Buffer.from(bulkText, 'base64url');
});
row(`b64uDecode, ${bulkBytes >> 20} MiB (per MiB)`, bulkBytes / 2 ** 20, () => void b64uDecode(bulkText), rawBulk);
row(
  `@scure/base alone, ${bulkBytes >> 20} MiB (per MiB)`,
  bulkBytes / 2 ** 20,
  () => void base64urlnopad.decode(bulkText),
  rawBulk,
);
const rawBulkEncode = row(`raw Buffer base64url encode, ${bulkBytes >> 20} MiB (per MiB)`, bulkBytes / 2 ** 20, () => {
  Buffer.from(bulk.buffer, bulk.byteOffset, bulk.byteLength).toString('base64url');
});
row(`b64uEncode, ${bulkBytes >> 20} MiB (per MiB)`, bulkBytes / 2 ** 20, () => void b64uEncode(bulk), rawBulkEncode);
row(
  `@scure/base alone encode, ${bulkBytes >> 20} MiB (per MiB)`,
  bulkBytes / 2 ** 20,
  () => void base64urlnopad.encode(bulk),
  rawBulkEncode,
);

console.log(formatTable(`bench/encoding.ts: ${rounds} round(s), best of`, rows, null));
