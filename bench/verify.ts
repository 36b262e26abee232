/**
 * `npm run bench` — verification throughput on one core.
 *
 * Rows: raw node:crypto Ed25519 verification (pre-made KeyObjects, pre-computed messages), raw
 * ML-DSA-65 verification (noble, which the node provider delegates to), and documents of every
 * format verified end to end: read the file, strict parse, canonicalization, every signature and
 * binding with the node provider, the report. Each format's ratio compares its documents per
 * second, times the signatures each document needs, with the raw primitive's rate in the same
 * run. Target: classical end to end at least 80% of raw.
 *
 * Classical receipts all differ; the other formats repeat their worked example (scripts/
 * worked-examples.ts): verification does the same work for a repeated document.
 *
 * Options: --count N (receipts, default 20000), --rounds N (default 3), --write-baseline,
 * --check (exit 1 when a row is below its target).
 */
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { signClassical } from '../src-shared/formats/classical';
import { parseJson } from '../src-shared/json';
import type { VerifyContext } from '../src-shared/verify/context';
import { verifyDocument } from '../src-shared/verify/verify';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { b64Decode, hexDecode, utf8Encode } from '../src-shared/crypto';
import { ed25519KeyEntry } from '../src-shared/verify/keys';
import { workedExamples } from '../scripts/worked-examples';
import { bestRate, formatTable, readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/verify.json', import.meta.url));
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface VerifyBenchOptions {
  count: number;
  rounds: number;
}

/** Runs the benchmark and returns its rows. Throws if any receipt fails to verify. */
export function runVerifyBench(options: VerifyBenchOptions): Measurement[] {
  const crypto = createNodeCryptoProvider();
  const directory = mkdtempSync(join(tmpdir(), 'bench-verify-'));
  try {
    const seeds = Array.from({ length: 8 }, (_, index) => new Uint8Array(32).fill(index + 1));
    const files: string[] = [];
    const raw: { message: Buffer; signature: Buffer; key: KeyObject }[] = [];
    const keyObjects = new Map<number, KeyObject>();
    for (let index = 0; index < options.count; index += 1) {
      const seedIndex = index % seeds.length;
      const payload = `{"sequence":${index},"merchant":"Acme Analytics Ltd","amount":"12.50","currency":"EUR","issued_at":"2026-11-01T12:00:00.000Z","items":[{"sku":"inference-${index}","qty":1,"unit_price":12.50}],"purpose":"model inference receipt"}`;
      const text = signClassical(payload, seeds[seedIndex]!, crypto);
      const file = join(directory, `receipt-${index}.json`);
      writeFileSync(file, text);
      files.push(file);
      const document = parseJson(text) as { raw_payload: string; signature: string; public_key_hex: string };
      if (!keyObjects.has(seedIndex)) {
        keyObjects.set(seedIndex, createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hexDecode(document.public_key_hex))]), format: 'der', type: 'spki' }));
      }
      raw.push({ message: Buffer.from(utf8Encode(document.raw_payload)), signature: Buffer.from(hexDecode(document.signature)), key: keyObjects.get(seedIndex)! });
    }
    const context: VerifyContext = { crypto, pinned: [], advertised: [], secrets: [], now: new Date() };

    let rawFailures = 0;
    let e2eFailures = 0;
    const rawRounds: number[] = [];
    const e2eRounds: number[] = [];
    // Alternate the two so both see the same machine conditions.
    for (let round = 0; round < options.rounds; round += 1) {
      rawRounds.push(
        bestRate(raw.length, 1, () => {
          for (const item of raw) if (!cryptoVerify(null, item.message, item.key, item.signature)) rawFailures += 1;
        }),
      );
      e2eRounds.push(
        bestRate(files.length, 1, () => {
          for (const file of files) if (verifyDocument(readFileSync(file), context).status !== 'PASS') e2eFailures += 1;
        }),
      );
    }
    if (rawFailures > 0 || e2eFailures > 0) throw new Error(`benchmark documents failed to verify: raw ${rawFailures}, end to end ${e2eFailures}`);
    const rawRate = Math.max(...rawRounds);
    const e2eRate = Math.max(...e2eRounds);
    const rows: Measurement[] = [
      { name: 'raw node:crypto Ed25519 verify', rate: rawRate },
      { name: 'classical end to end', rate: e2eRate, rawOf: 'raw Ed25519', ratio: e2eRate / rawRate, target: 0.8 },
    ];
    rows.push(...formatRows(directory, options, rawRate));
    return rows;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Signatures each worked example needs, and the primitive they use. */
const FORMAT_COST: Record<string, { signatures: number; primitive: 'Ed25519' | 'ML-DSA-65' }> = {
  countersigner: { signatures: 1, primitive: 'Ed25519' },
  sealed: { signatures: 1, primitive: 'Ed25519' },
  'envelope/svc-receipt-v1': { signatures: 3, primitive: 'Ed25519' },
  'wearable/r2.0.0': { signatures: 2, primitive: 'Ed25519' },
  'profile/nano': { signatures: 1, primitive: 'Ed25519' },
  'profile/standard': { signatures: 1, primitive: 'Ed25519' },
  'profile/pq': { signatures: 1, primitive: 'Ed25519' },
  'typed/authority.delegation': { signatures: 1, primitive: 'Ed25519' },
  'typed-pq': { signatures: 1, primitive: 'ML-DSA-65' },
};

/** The keys and secrets the worked examples need (the seeds scripts/worked-examples.ts uses). */
function exampleContext(crypto: VerifyContext['crypto']): VerifyContext {
  const seed = (byte: number): Uint8Array => new Uint8Array(32).fill(byte);
  return {
    crypto,
    pinned: [],
    advertised: [
      ed25519KeyEntry(crypto, 'did:svc:example:requester', seed(0x55)),
      ed25519KeyEntry(crypto, 'did:svc:example:operator', seed(0x56)),
      ed25519KeyEntry(crypto, 'did:svc:example:service', seed(0x57)),
      ed25519KeyEntry(crypto, 'did:svc:evroom:wearable-example', seed(0x53)),
      ed25519KeyEntry(crypto, 'did:svc:evroom:example-k1', seed(0x53)),
    ],
    secrets: [{ key_id: 'secret-2026-01', key: seed(0x33) }],
    now: new Date(),
  };
}

/** One row per format: its worked example written to files and verified end to end. */
function formatRows(directory: string, options: VerifyBenchOptions, rawEd25519: number): Measurement[] {
  const crypto = createNodeCryptoProvider();
  const context = exampleContext(crypto);
  const examples = workedExamples(crypto).filter((example) => example.format in FORMAT_COST);
  // Raw ML-DSA-65: the typed-pq example's signature over its digest, through noble directly.
  const typedPq = examples.find((example) => example.format === 'typed-pq');
  let rawMlDsa = 0;
  const rows: Measurement[] = [];
  if (typedPq) {
    const envelope = (JSON.parse(typedPq.document) as { envelope: { public_key: string; signature: string; digest: string } }).envelope;
    const publicKey = b64Decode(envelope.public_key);
    const signature = b64Decode(envelope.signature);
    const digest = hexDecode(envelope.digest);
    const count = Math.max(20, Math.floor(options.count / 100));
    rawMlDsa = bestRate(count, options.rounds, () => {
      for (let index = 0; index < count; index += 1) if (!ml_dsa65.verify(signature, digest, publicKey)) throw new Error('ML-DSA vector failed');
    });
    rows.push({ name: 'raw ML-DSA-65 verify (noble)', rate: rawMlDsa });
  }
  for (const example of examples) {
    const cost = FORMAT_COST[example.format]!;
    const count = cost.primitive === 'ML-DSA-65' ? Math.max(20, Math.floor(options.count / 100)) : Math.max(100, Math.floor(options.count / 10));
    const file = join(directory, `${example.format.replace(/[^a-z0-9]+/g, '-')}.json`);
    writeFileSync(file, example.document);
    const rate = bestRate(count, options.rounds, () => {
      for (let index = 0; index < count; index += 1) {
        const status = verifyDocument(readFileSync(file), context).status;
        if (status !== 'PASS') throw new Error(`${example.format} worked example verified ${status}`);
      }
    });
    const raw = cost.primitive === 'ML-DSA-65' ? rawMlDsa : rawEd25519;
    rows.push({ name: `${example.format} end to end`, rate, rawOf: `raw ${cost.primitive}${cost.signatures > 1 ? ` / ${cost.signatures}` : ''}`, ratio: (rate * cost.signatures) / raw });
  }
  return rows;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '20000' },
      rounds: { type: 'string', default: '3' },
      'write-baseline': { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  const count = Number(values.count);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(rounds) || rounds < 1) {
    console.error('bench/verify.ts: --count and --rounds must be positive whole numbers');
    process.exit(2);
  }
  const rows = runVerifyBench({ count, rounds });
  console.log(formatTable(`bench/verify.ts: ${count} receipts, best of ${rounds} rounds`, rows, readBaseline(BASELINE)));
  if (values['write-baseline']) {
    writeBaseline(BASELINE, rows);
    console.log(`\nbaseline written to ${BASELINE}`);
  }
  if (values.check && rows.some((row) => row.target !== undefined && (row.ratio ?? 0) < row.target)) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
