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
 * Options: --quick (500 receipts, one round, the classical rows: a check that it runs, not a
 * measurement),
 * --count N (receipts, default 20000), --rounds N (passes, default 3), --write-baseline,
 * --check (exit 1 when a row is below its target), --classical-only (the raw and classical rows
 * alone, about half a minute; not with --write-baseline).
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
import { bestRate, formatTable, pairedRates, readBaseline, writeBaseline, type Measurement } from './harness';

const BASELINE = fileURLToPath(new URL('./baselines/verify.json', import.meta.url));
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface VerifyBenchOptions {
  count: number;
  rounds: number;
  /** Measure the raw and classical rows only. */
  classicalOnly?: boolean;
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
        keyObjects.set(
          seedIndex,
          createPublicKey({
            key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hexDecode(document.public_key_hex))]),
            format: 'der',
            type: 'spki',
          }),
        );
      }
      raw.push({
        message: Buffer.from(utf8Encode(document.raw_payload)),
        signature: Buffer.from(hexDecode(document.signature)),
        key: keyObjects.get(seedIndex)!,
      });
    }
    const context: VerifyContext = { crypto, pinned: [], advertised: [], secrets: [], now: new Date() };

    // Alternate short chunks of raw verifications and end-to-end documents (see pairedRates).
    const chunk = Math.min(1000, files.length);
    let offset = 0;
    const nextChunk = (): number => {
      const start = offset;
      offset = (offset + chunk) % files.length;
      return start;
    };
    let rawStart = 0;
    let e2eStart = 0;
    const classical = pairedRates(
      Math.max(1, Math.round((options.rounds * files.length) / chunk)),
      {
        operations: chunk,
        work: () => {
          rawStart = nextChunk();
          for (let index = rawStart; index < rawStart + chunk; index += 1) {
            const item = raw[index % raw.length]!;
            if (!cryptoVerify(null, item.message, item.key, item.signature)) throw new Error('raw verification failed');
          }
        },
      },
      {
        operations: chunk,
        work: () => {
          e2eStart = rawStart;
          for (let index = e2eStart; index < e2eStart + chunk; index += 1) {
            if (verifyDocument(readFileSync(files[index % files.length]!), context).status !== 'PASS')
              throw new Error('a benchmark receipt did not verify');
          }
        },
      },
    );
    const rawRate = classical.rawRate;
    const rows: Measurement[] = [
      { name: 'raw node:crypto Ed25519 verify', rate: rawRate },
      {
        name: 'classical end to end',
        rate: classical.rowRate,
        rawOf: 'raw Ed25519',
        ratio: classical.ratio,
        target: 0.8,
      },
    ];
    if (options.classicalOnly !== true) rows.push(...formatRows(directory, options, raw));
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
  'sigr-chain-pq': { signatures: 1, primitive: 'ML-DSA-65' },
  hahs: { signatures: 1, primitive: 'Ed25519' },
  'smsh-stamp': { signatures: 1, primitive: 'Ed25519' },
  spectral: { signatures: 1, primitive: 'Ed25519' },
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
      ed25519KeyEntry(crypto, 'example-key-001', seed(0x62)),
    ],
    secrets: [{ key_id: 'secret-2026-01', key: seed(0x33) }],
    now: new Date(),
  };
}

/** One row per format: its worked example written to files and verified end to end. */
function formatRows(
  directory: string,
  options: VerifyBenchOptions,
  rawItems: readonly { message: Buffer; signature: Buffer; key: KeyObject }[],
): Measurement[] {
  const crypto = createNodeCryptoProvider();
  const context = exampleContext(crypto);
  const examples = workedExamples(crypto).filter((example) => example.format in FORMAT_COST);
  // Raw ML-DSA-65: the typed-pq example's signature over its payload digest, through noble directly.
  const typedPq = examples.find((example) => example.format === 'typed-pq');
  const rows: Measurement[] = [];
  let rawMlDsaWork: (operations: number) => () => void = () => () => undefined;
  if (typedPq) {
    const envelope = (
      JSON.parse(typedPq.document) as {
        envelope: { public_key: string; envelope_signature: string; payload_digest: string };
      }
    ).envelope;
    const publicKey = b64Decode(envelope.public_key);
    const signature = b64Decode(envelope.envelope_signature);
    const digest = hexDecode(envelope.payload_digest);
    rawMlDsaWork = (operations) => () => {
      for (let index = 0; index < operations; index += 1)
        if (!ml_dsa65.verify(signature, digest, publicKey)) throw new Error('ML-DSA vector failed');
    };
    rows.push({ name: 'raw ML-DSA-65 verify (noble)', rate: bestRate(20, options.rounds, rawMlDsaWork(20)) });
  }
  const rawEd25519Work = (operations: number) => () => {
    for (let index = 0; index < operations; index += 1) {
      const item = rawItems[index % rawItems.length]!;
      if (!cryptoVerify(null, item.message, item.key, item.signature)) throw new Error('raw verification failed');
    }
  };
  for (const example of examples) {
    const cost = FORMAT_COST[example.format]!;
    const mlDsa = cost.primitive === 'ML-DSA-65';
    const count = mlDsa ? 10 : 100;
    const file = join(directory, `${example.format.replace(/[^a-z0-9]+/g, '-')}.json`);
    writeFileSync(file, example.document);
    const documentWork = () => {
      for (let index = 0; index < count; index += 1) {
        const status = verifyDocument(readFileSync(file), context).status;
        if (status !== 'PASS') throw new Error(`${example.format} worked example verified ${status}`);
      }
    };
    // Each pair: the raw signatures one batch of documents needs, then the documents.
    const measured = pairedRates(
      Math.max(3, Math.round((options.rounds * options.count) / 2000)),
      {
        operations: count * cost.signatures,
        work: mlDsa ? rawMlDsaWork(count * cost.signatures) : rawEd25519Work(count * cost.signatures),
      },
      { operations: count, work: documentWork },
    );
    rows.push({
      name: `${example.format} end to end`,
      rate: measured.rowRate,
      rawOf: `raw ${cost.primitive}${cost.signatures > 1 ? ` / ${cost.signatures}` : ''}`,
      ratio: measured.ratio * cost.signatures,
    });
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
      'classical-only': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
    },
  });
  // --quick: a check that the bench works (seconds, small data), not a measurement.
  const count = Number(values.quick ? 500 : values.count);
  const rounds = Number(values.quick ? 1 : values.rounds);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(rounds) || rounds < 1) {
    console.error('bench/verify.ts: --count and --rounds must be positive whole numbers');
    process.exit(2);
  }
  const classicalOnly = values['classical-only'] || values.quick;
  if (classicalOnly && values['write-baseline']) {
    console.error('bench/verify.ts: --classical-only measures two rows; a baseline needs them all');
    process.exit(2);
  }
  const rows = runVerifyBench({ count, rounds, classicalOnly });
  console.log(
    formatTable(
      `bench/verify.ts: ${count} receipts, ${rounds} passes of alternating raw/end-to-end chunks (medians)`,
      rows,
      readBaseline(BASELINE),
    ),
  );
  if (values['write-baseline']) {
    writeBaseline(BASELINE, rows);
    console.log(`\nbaseline written to ${BASELINE}`);
  }
  if (values.check && rows.some((row) => row.target !== undefined && (row.ratio ?? 0) < row.target)) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
