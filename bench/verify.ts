/**
 * `npm run bench` — verification throughput on one core.
 *
 * Rows: raw node:crypto Ed25519 verification (pre-made KeyObjects, pre-computed messages) and
 * classical receipts verified end to end: read the file, strict parse, SKP canonicalization,
 * signature verification with the node provider, the report. Target: end to end at least 80%
 * of raw.
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
import { hexDecode, utf8Encode } from '../src-shared/crypto';
import { parseJson } from '../src-shared/json';
import type { VerifyContext } from '../src-shared/verify/context';
import { verifyDocument } from '../src-shared/verify/verify';
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
  const directory = mkdtempSync(join(tmpdir(), 'evroom-bench-'));
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
    return [
      { name: 'raw node:crypto Ed25519 verify', rate: rawRate },
      { name: 'classical end to end', rate: e2eRate, rawOf: 'raw Ed25519', ratio: e2eRate / rawRate, target: 0.8 },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
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
