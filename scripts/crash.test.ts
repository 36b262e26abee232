import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utf8Encode } from '../src-shared/crypto';
import { signClassical } from '../src-shared/formats/classical';
import { createNodeCryptoProvider } from '../src-main/core/node-crypto-provider';
import { bundleParts, keyEntryFor, zipBundle } from '../src-main/evidence/test-support';
import {
  findReceiptsByDocumentId,
  getReceipt,
  LEDGER_FILE_NAME,
  listBundles,
  listReceipts,
  openLedgerReadOnly,
  type ReceiptSummary,
} from '../src-main/ledger/index';

// Crash safety (issue "Hardening"): `kill -9` at random points while `evroom import` runs on
// real bundles, and while `evroom serve` answers bursts of issuance requests. Afterwards nothing
// acknowledged is lost (an import that exited 0 is whole; every receipt answered 2xx is in the
// ledger), nothing is doubled, and `evroom ledger check` is clean.
//
// CI runs a quick round (about a minute); the full run is 100 imports and 100 bursts:
//   EVROOM_CRASH_IMPORTS=100 EVROOM_CRASH_BURSTS=100 npx vitest run scripts/crash.test.ts
// EVROOM_CRASH_SEED repeats a run (the seed is printed).

const BIN = fileURLToPath(new URL('../bin/evroom.mjs', import.meta.url));
const IMPORTS = Number(process.env.EVROOM_CRASH_IMPORTS ?? 5);
const BURSTS = Number(process.env.EVROOM_CRASH_BURSTS ?? 3);
const SEED = Number(process.env.EVROOM_CRASH_SEED ?? randomBytes(4).readUInt32LE(0));
const BUNDLES = IMPORTS >= 50 ? 5 : 3;
const RECEIPTS_PER_BUNDLE = 200;
const BURST_STREAMS = 8;
const LONG = Math.max(120_000, (IMPORTS + BURSTS) * 15_000);

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);

function evroom(home: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `evroom ARGS`, killing it with SIGKILL after `killAfterMs` unless it ended first. */
function runKilled(
  home: string,
  args: string[],
  killAfterMs: number,
): Promise<{ code: number | null; killed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, EVROOM_HOME: home, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    let killed = false;
    const timer = setTimeout(() => {
      killed = child.kill('SIGKILL');
    }, killAfterMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, killed: killed && code === null });
    });
  });
}

/** Every receipt of a ledger, walked page by page. */
function allReceipts(home: string): ReceiptSummary[] {
  const ledger = openLedgerReadOnly(path.join(home, LEDGER_FILE_NAME));
  try {
    const rows: ReceiptSummary[] = [];
    let after: string | undefined;
    do {
      const page = listReceipts(ledger.readable, { limit: 1000, ...(after ? { after } : {}) });
      rows.push(...page.rows);
      after = page.nextCursor ?? undefined;
    } while (after !== undefined);
    return rows;
  } finally {
    ledger.close();
  }
}

function expectNoDoubles(rows: readonly ReceiptSummary[]): void {
  expect(new Set(rows.map((row) => row.receipt_sha256)).size).toBe(rows.length);
  const ids = rows.map((row) => row.receipt_id).filter((id): id is string => id !== null);
  expect(new Set(ids).size).toBe(ids.length);
}

function expectLedgerCheckClean(home: string): void {
  const check = evroom(home, ['ledger', 'check']);
  expect(check.code, `${check.stdout}${check.stderr}`).toBe(0);
  const stats = evroom(home, ['ledger', 'stats', '--json']);
  expect(stats.code, stats.stderr).toBe(0);
}

describe('crash safety: kill -9 at random points', () => {
  let directory: string;

  beforeAll(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-crash-'));
    console.log(
      `crash safety: seed ${SEED}, ${IMPORTS} imports, ${BURSTS} bursts (EVROOM_CRASH_SEED=${SEED} repeats it)`,
    );
  });
  afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

  it(
    `imports killed at random points lose nothing that was acknowledged and double nothing`,
    async () => {
      const crypto = createNodeCryptoProvider();
      const signer = { seed: new Uint8Array(32).fill(41), keyId: 'did:svc:acme:bundles' };
      const receiptSeed = new Uint8Array(32).fill(42);
      const bundles = Array.from({ length: BUNDLES }, (_, bundle) => {
        const receipts = Array.from({ length: RECEIPTS_PER_BUNDLE }, (_, index) => ({
          stem: `r${index}`,
          bytes: utf8Encode(signClassical({ bundle, sequence: index, memo: 'crash safety' }, receiptSeed, crypto)),
        }));
        const file = path.join(directory, `bundle-${bundle}.zip`);
        fs.writeFileSync(
          file,
          zipBundle(
            bundleParts(receipts, {
              keyId: signer.keyId,
              keys: [keyEntryFor(signer.keyId, signer.seed, crypto)],
              tenant: `t${bundle}`,
            }),
            signer,
            crypto,
          ),
        );
        return { file, sha256: receipts.map((receipt) => createHash('sha256').update(receipt.bytes).digest('hex')) };
      });

      // How long one whole import takes here, so the kills fall before, during and after it.
      const home = path.join(directory, 'imports');
      const probeHome = path.join(directory, 'probe');
      const started = Date.now();
      expect(evroom(probeHome, ['import', bundles[0]!.file]).code).toBe(0);
      const whole = Date.now() - started;

      const acknowledged = new Set<number>();
      let killedCount = 0;
      for (let round = 0; round < IMPORTS; round += 1) {
        const index = Math.floor(random() * BUNDLES);
        const result = await runKilled(home, ['import', bundles[index]!.file], Math.floor(random() * whole * 1.2));
        if (result.killed) killedCount += 1;
        else {
          expect(result.code, `import of bundle ${index} in round ${round}`).toBe(0);
          acknowledged.add(index);
        }
      }
      console.log(
        `imports: ${IMPORTS} runs (one whole import ${whole} ms), ${killedCount} killed, ${IMPORTS - killedCount} finished`,
      );

      // Nothing acknowledged is lost: every bundle whose import exited 0 is whole. When every run
      // was killed before the data folder was made (a seed whose kills all fall in start-up),
      // nothing was acknowledged and there is no ledger to look at yet.
      if (fs.existsSync(path.join(home, LEDGER_FILE_NAME))) {
        const ledger = openLedgerReadOnly(path.join(home, LEDGER_FILE_NAME));
        try {
          for (const index of acknowledged)
            for (const sha of bundles[index]!.sha256)
              expect(getReceipt(ledger.readable, sha), `bundle ${index}`).toBeDefined();
        } finally {
          ledger.close();
        }
        expectNoDoubles(allReceipts(home));
        expectLedgerCheckClean(home);
      } else expect([...acknowledged], 'imports acknowledged without a ledger').toEqual([]);

      // Importing each bundle again finishes what was cut short, and doubles nothing.
      for (const bundle of bundles) expect(evroom(home, ['import', bundle.file]).code).toBe(0);
      const rows = allReceipts(home);
      expect(rows.length).toBe(BUNDLES * RECEIPTS_PER_BUNDLE);
      expectNoDoubles(rows);
      const check = openLedgerReadOnly(path.join(home, LEDGER_FILE_NAME));
      try {
        expect(listBundles(check.readable, { limit: 1000 }).rows.length).toBe(BUNDLES);
      } finally {
        check.close();
      }
      expectLedgerCheckClean(home);
    },
    LONG,
  );

  it(
    'the service killed mid-burst keeps every receipt it answered 2xx, once',
    async () => {
      const home = path.join(directory, 'service');
      expect(evroom(home, ['tenants', 'create', 'crash', '--tier', 'scale']).code).toBe(0);
      const { key } = JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'crash', '--json']).stdout) as {
        key: string;
      };
      const answered: string[] = [];
      let failedRequests = 0;

      for (let burst = 0; burst < BURSTS; burst += 1) {
        const child: ChildProcess = spawn(
          process.execPath,
          [BIN, 'serve', '--port', '0', '--quiet', '--rate-limit', '1000000'],
          { env: { ...process.env, EVROOM_HOME: home }, stdio: ['ignore', 'pipe', 'ignore'] },
        );
        const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
        const port = await new Promise<number>((resolve, reject) => {
          let output = '';
          child.stdout?.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            const match = /service at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
            if (match?.[1]) resolve(Number(match[1]));
          });
          child.on('exit', (code) => reject(new Error(`evroom serve exited with ${String(code)}: ${output}`)));
        });
        const agent = new http.Agent({ keepAlive: true, maxSockets: BURST_STREAMS });
        let stop = false;
        const emit = (): Promise<void> =>
          new Promise((resolve) => {
            const body = JSON.stringify({
              agent_did: 'did:web:agent.example.com',
              content_sha256: randomBytes(32).toString('hex'),
              content_type: 'text/plain',
            });
            const outgoing = http.request(
              {
                host: '127.0.0.1',
                port,
                agent,
                method: 'POST',
                path: '/v1/receipt/emit?profile=standard',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
              },
              (incoming) => {
                let text = '';
                incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
                incoming.on('end', () => {
                  // The answer is acknowledged only when it arrived whole.
                  if (incoming.statusCode === 201)
                    answered.push((JSON.parse(text) as { receipt: { id: string } }).receipt.id);
                  else failedRequests += 1;
                  resolve();
                });
                incoming.on('error', () => resolve());
                incoming.on('aborted', () => resolve());
              },
            );
            outgoing.on('error', () => resolve());
            outgoing.end(body);
          });
        const streams = Array.from({ length: BURST_STREAMS }, async () => {
          while (!stop) await emit();
        });
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.floor(random() * 700)));
        child.kill('SIGKILL');
        await exited;
        stop = true;
        await Promise.all(streams);
        agent.destroy();
      }
      console.log(
        `service: ${BURSTS} bursts of ${BURST_STREAMS} streams, ${answered.length} receipts answered 201, ${failedRequests} other answers`,
      );
      expect(failedRequests).toBe(0);
      expect(answered.length).toBeGreaterThan(0);

      const ledger = openLedgerReadOnly(path.join(home, LEDGER_FILE_NAME));
      try {
        for (const id of answered) expect(findReceiptsByDocumentId(ledger.readable, id), id).toHaveLength(1);
      } finally {
        ledger.close();
      }
      const rows = allReceipts(home);
      expect(rows.length).toBeGreaterThanOrEqual(answered.length);
      expectNoDoubles(rows);
      expectLedgerCheckClean(home);
    },
    LONG,
  );
});
