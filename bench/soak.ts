/**
 * bench/soak.ts: the HTTP service soaked (issue "Hardening"): 60 s at 32 connections mixed over
 * every route of the service, in its own process (`evroom serve`), with autocannon.
 *
 * Checks, each a failure (exit 1) when broken:
 * - zero 5xx answers and zero connection errors or timeouts over the whole soak;
 * - the service child's RSS grows under 10% from the end of a warm-up (the given time, then until
 *   RSS changes under 2% in a second; V8's heap spaces grow to their working size then) to the
 *   end of the soak, and its peak is printed. The service runs with a 4 MiB ledger page cache
 *   (`--ledger-cache`, default 64 MiB per connection): the soak issues receipts all the time, so
 *   the ledger grows (about 3 KB a receipt) and a 64 MiB cache would fill with its pages for the
 *   whole run, by design and bounded: measured here, 40 MiB of growth in 30 s of emits with the
 *   default cache, flat with a 2 MiB one. The bound is for leaks, not for the configured cache;
 * - tenant isolation under concurrency: while the load runs, tenant A's and tenant B's evidence
 *   bundles of the last ISOLATION_WINDOW_S seconds are fetched again and again, and once the load
 *   ends each tenant's whole evidence; each holds only receipts that tenant issued (by
 *   agent_did), and every cross-tenant request (A's key on B's paths) is 403, never 2xx. (Under
 *   the load a recent period, not the whole log: a bundle's manifest and zip directory list
 *   every receipt and proofs.json holds every leaf's proof, so an export's memory follows the
 *   size of what it exports, and a whole log growing by hundreds of receipts a second gives an
 *   RSS that cannot settle by design; bench/README.md, "The soak's memory".)
 * - key guessing hits the rate limit: a second service with the default limit (600 a minute
 *   per address) answers random API keys 401 and then 429 within the limit's count.
 *
 * Options: --duration S (default 60), --warmup S (default 10), --connections N (default 32),
 * --ledger-cache MIB (the service's ledger page cache, default 4),
 * --quick (5 s soak, 2 s warm-up, RSS growth printed but not judged: CI runs it through
 * bench/soak.quick.test.ts; the 10% bound is the full soak's).
 * Prints one JSON line (`soak result: {...}`) last, for tests and docs/security.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { wearableWorkedExample } from '../src-shared/formats/wearable/example';
import { signedStandardReceipt } from './fixtures';

const BIN = fileURLToPath(new URL('../bin/evroom.mjs', import.meta.url));

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}
const quick = process.argv.includes('--quick');
const duration = Number(argument('duration') ?? (quick ? 5 : 60));
const warmup = Number(argument('warmup') ?? (quick ? 2 : 10));
const connections = Number(argument('connections') ?? 32);
const ledgerCache = argument('ledger-cache') ?? '4';

function evroom(home: string, args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home },
  });
  if (result.status !== 0) throw new Error(`evroom ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function startService(home: string, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet', ...args], {
    env: { ...process.env, EVROOM_HOME: home },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /service at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`evroom serve exited with ${String(code)}: ${output}`)));
  });
}

/** Current RSS of a process in MiB (Linux). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
}

/** The period (seconds back from each request) of the evidence fetched while the load runs. */
const ISOLATION_WINDOW_S = 10;
/** The longest soak whose whole logs are fetched at the end (longer: the last this many seconds). */
const FINAL_WHOLE_MAX_S = 120;

const AGENT_A = 'did:web:tenant-a.example';
const AGENT_B = 'did:web:tenant-b.example';

/** Agent DIDs of every receipt in an evidence bundle. */
async function agentsInEvidence(bytes: Buffer): Promise<string[]> {
  const zip = await JSZip.loadAsync(bytes);
  const agents: string[] = [];
  for (const name of Object.keys(zip.files)) {
    if (!name.startsWith('receipts/') || !name.endsWith('.json')) continue;
    const text = await zip.files[name]!.async('string');
    const receipt = JSON.parse(text) as { agent_did?: string };
    agents.push(receipt.agent_did ?? '(none)');
  }
  return agents;
}

async function main(): Promise<void> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-soak-'));
  const guessHome = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-soak-guess-'));
  const children: ChildProcess[] = [];
  const failures: string[] = [];
  try {
    evroom(home, ['tenants', 'create', 'tenant-a', '--tier', 'scale']);
    evroom(home, ['tenants', 'create', 'tenant-b', '--tier', 'scale']);
    const keyA = (JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'tenant-a', '--json'])) as { key: string })
      .key;
    const partnerA = (
      JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'tenant-a', '--scope', 'partner', '--json'])) as {
        key: string;
      }
    ).key;
    const keyB = (JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'tenant-b', '--json'])) as { key: string })
      .key;

    const { receipt, keyFile, crypto } = signedStandardReceipt('did:svc:soak:k1');
    const verifyBody = JSON.stringify({ document: receipt, keys: keyFile });
    const json = { 'content-type': 'application/json' };
    const asA = { ...json, authorization: `Bearer ${keyA}` };
    const asB = { ...json, authorization: `Bearer ${keyB}` };
    const asPartner = { ...json, authorization: `Bearer ${partnerA}` };
    const emitA = JSON.stringify({ agent_did: AGENT_A, input: 'soak A', content_type: 'text/plain' });
    const emitB = JSON.stringify({ agent_did: AGENT_B, input: 'soak B', content_type: 'text/plain' });
    const wearableFields = wearableWorkedExample(crypto).callerFields;
    const typedRoutes = [
      'delegation-link',
      'proof-demand',
      'imprimatur-clearance',
      'sigr-chain',
      'divergence-record',
      'effect-closure',
      'proof-transition',
    ];
    const surface = {
      name: 'checkout',
      sample_payload: '{"order_id":"A-1","amount":12.5}',
      signer: 'Ed25519',
      clock_source: 'NTP',
      ids_stable: true,
    };

    // Every route of the service (GET /openapi.json lists them), with bodies that reach its work.
    const requests: Record<string, unknown>[] = [
      { method: 'GET', path: '/status' },
      { method: 'GET', path: '/pricing' },
      { method: 'GET', path: '/v1/keys' },
      { method: 'GET', path: '/openapi.json' },
      { method: 'GET', path: '/verifier' },
      { method: 'POST', path: '/v1/receipt/verify', headers: json, body: verifyBody },
      { method: 'POST', path: '/v1/receipts/verify', headers: json, body: verifyBody },
      ...typedRoutes.map((route) => ({
        method: 'POST',
        path: `/v1/verify/${route}`,
        headers: json,
        body: JSON.stringify({ contract: { contract_type: 'authority.delegation' } }),
      })),
      { method: 'POST', path: '/verify', headers: json, body: emitA },
      { method: 'POST', path: '/v1/wearable/verify', headers: json, body: verifyBody },
      { method: 'POST', path: '/v1/receipt/emit?profile=standard', headers: asA, body: emitA },
      { method: 'POST', path: '/v1/receipt/emit?profile=pq', headers: asB, body: emitB },
      {
        method: 'POST',
        path: '/v1/receipt/free',
        headers: json,
        body: JSON.stringify({ input: 'soak', purpose: 'soak test' }),
      },
      { method: 'POST', path: '/tenants/tenant-a/receipts?profile=nano', headers: asA, body: emitA },
      { method: 'POST', path: '/tenants/tenant-b/receipts', headers: asB, body: emitB },
      { method: 'POST', path: '/v1/wearable/receipts', headers: asA, body: JSON.stringify(wearableFields) },
      { method: 'GET', path: '/tenants/tenant-a/evidence?since=2099-01-01T00:00:00Z', headers: asA },
      // Cross-tenant requests in the mix: each must be 403.
      { method: 'GET', path: '/tenants/tenant-b/evidence', headers: asA },
      { method: 'POST', path: '/tenants/tenant-a/receipts', headers: asB, body: emitB },
      { method: 'POST', path: '/v1/rubric/select', headers: json, body: JSON.stringify({ intent: 'regulated' }) },
      {
        method: 'POST',
        path: '/v1/rosetta/normalize',
        headers: asPartner,
        body: JSON.stringify({ from_regime: 'eu_ai_act', obligations: ['record_keeping'] }),
      },
      {
        method: 'POST',
        path: '/v1/rosetta/translate',
        headers: asPartner,
        body: JSON.stringify({ from_regime: 'iso_iec_42001', obligations: ['human_oversight'] }),
      },
      { method: 'POST', path: '/v1/prospector/qualify', headers: asPartner, body: JSON.stringify({ surface }) },
    ];

    const service = await startService(home, ['--rate-limit', '1000000', '--ledger-cache', ledgerCache]);
    children.push(service.child);
    const pid = service.child.pid ?? 0;

    // Each route once on its own first: none may be 5xx, and the cross-tenant ones are 403.
    const perRoute: Record<string, number> = {};
    for (const request of requests) {
      const answer = await fetch(`${service.url}${String(request['path'])}`, {
        method: String(request['method']),
        headers: (request['headers'] as Record<string, string> | undefined) ?? {},
        ...(request['body'] === undefined ? {} : { body: String(request['body']) }),
      });
      await answer.arrayBuffer();
      perRoute[`${Object.keys(perRoute).length} ${String(request['method'])} ${String(request['path'])}`] =
        answer.status;
      if (answer.status >= 500)
        failures.push(`${String(request['method'])} ${String(request['path'])} answered ${answer.status}`);
    }
    // The two cross-tenant requests of the mix (the last two before the rubric) are 403.
    const answers = Object.values(perRoute);
    const crossIndex = requests.findIndex((request) => request['path'] === '/tenants/tenant-b/evidence');
    for (const index of [crossIndex, crossIndex + 1]) {
      if (answers[index] !== 403)
        failures.push(
          `a cross-tenant request (${String(requests[index]?.['path'])}) answered ${String(answers[index])}`,
        );
    }

    // Warm-up: the fixed time, then one-second rounds until the RSS settles (under 2% change in
    // a round; SQLite's page cache and V8's heap spaces grow to their working size first). On a
    // loaded host the fixed warm-up alone can end mid-growth (CI once saw 13% over a 5 s quick
    // soak that way), which would measure warm-up, not a leak.
    await autocannon({ url: service.url, connections, duration: warmup, requests });
    let warmupSeconds = warmup;
    for (let previous = rssOf(pid), round = 0; round < (quick ? 10 : 30); round += 1) {
      await autocannon({ url: service.url, connections, duration: 1, requests });
      warmupSeconds += 1;
      const now = rssOf(pid);
      if (Math.abs(now - previous) / previous < 0.02) break;
      previous = now;
    }
    const rssStart = rssOf(pid);
    let rssPeak = rssStart;
    // The RSS every 10 s of the soak, to show whether it settles (a 10-minute run: --duration 600).
    const rssSeries: number[] = [];
    let samples = 0;
    const sampler = setInterval(() => {
      const now = rssOf(pid);
      rssPeak = Math.max(rssPeak, now);
      samples += 1;
      if (samples % 20 === 0) rssSeries.push(Number(now.toFixed(1)));
    }, 500);

    // Isolation while the load runs: each tenant's evidence of a recent period, over and over,
    // and cross requests; each tenant's whole evidence once the load has ended.
    let stop = false;
    let isolationRounds = 0;
    let crossAnswers = 0;
    let receiptsChecked = 0;
    const checkEvidence = async (tenant: string, key: string, own: string, other: string, since?: Date) => {
      const period = since === undefined ? '' : `?since=${since.toISOString().replace(/\.\d+Z$/, 'Z')}`;
      const answer = await fetch(`${service.url}/tenants/${tenant}/evidence${period}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      if (answer.status !== 200) {
        failures.push(`GET /tenants/${tenant}/evidence${period} with its own key answered ${answer.status}`);
        return;
      }
      const agents = await agentsInEvidence(bytes);
      receiptsChecked += agents.length;
      if (agents.includes(other)) failures.push(`${tenant}'s evidence holds a receipt of the other tenant`);
      // B issues only standard and pq receipts naming AGENT_B; A also nano (no agent) and wearable ones.
      if (tenant === 'tenant-b' && agents.some((agent) => agent !== own))
        failures.push(`${tenant}'s evidence holds a receipt it did not issue`);
    };
    const tenants = [
      ['tenant-a', keyA, AGENT_A, AGENT_B],
      ['tenant-b', keyB, AGENT_B, AGENT_A],
    ] as const;
    const isolation = (async () => {
      while (!stop) {
        for (const [tenant, key, own, other] of tenants) {
          await checkEvidence(tenant, key, own, other, new Date(Date.now() - ISOLATION_WINDOW_S * 1000));
          const crossing = await fetch(
            `${service.url}/tenants/${tenant === 'tenant-a' ? 'tenant-b' : 'tenant-a'}/evidence`,
            { headers: { authorization: `Bearer ${key}` } },
          );
          await crossing.arrayBuffer();
          crossAnswers += 1;
          if (crossing.status !== 403)
            failures.push(`a key of ${tenant} on the other tenant's evidence answered ${crossing.status}`);
        }
        isolationRounds += 1;
        await new Promise((resolve) => setTimeout(resolve, quick ? 500 : 3000));
      }
    })();

    const started = performance.now();
    const result = await autocannon({ url: service.url, connections, duration, requests });
    const seconds = (performance.now() - started) / 1000;
    stop = true;
    await isolation;
    clearInterval(sampler);
    const rssEnd = rssOf(pid);
    const receiptsUnderLoad = receiptsChecked;
    // Each tenant's whole evidence, now that the load is over (after the RSS is read). Past
    // FINAL_WHOLE_MAX_S of soak, the last FINAL_WHOLE_MAX_S seconds instead: a longer run's whole
    // log outgrows what one bundle may hold (proofs.json over the import's entry limit).
    const finalSince = duration <= FINAL_WHOLE_MAX_S ? undefined : new Date(Date.now() - FINAL_WHOLE_MAX_S * 1000);
    for (const [tenant, key, own, other] of tenants) await checkEvidence(tenant, key, own, other, finalSince);
    const receiptsInWholeLogs = receiptsChecked - receiptsUnderLoad;
    rssPeak = Math.max(rssPeak, rssEnd);
    const growth = (rssEnd - rssStart) / rssStart;
    if (result['5xx'] > 0) failures.push(`${result['5xx']} answers were 5xx`);
    if (result.errors > 0 || result.timeouts > 0)
      failures.push(`${result.errors} connection errors, ${result.timeouts} timeouts`);
    // The leak bound is the 60 s soak's. Over the quick mode's 5 s on a host running the whole
    // test suite, V8's heap still moves by 10-15% (CI saw 13.3% and 11.2% with no leak), so the
    // quick mode prints the growth and does not judge it.
    if (growth >= 0.1 && !quick)
      failures.push(`RSS grew ${(growth * 100).toFixed(1)}% (${rssStart.toFixed(0)} to ${rssEnd.toFixed(0)} MiB)`);
    if (isolationRounds === 0) failures.push('the isolation check never completed a round');
    if (receiptsUnderLoad === 0) failures.push('the evidence fetched under load held no receipt');

    // Key guessing against the default rate limit (600 a minute per address).
    const guarded = await startService(guessHome, []);
    children.push(guarded.child);
    let guesses = 0;
    let unauthorized = 0;
    let limitedAt = 0;
    for (; guesses < 700 && limitedAt === 0; guesses += 1) {
      const guess = `svc_scale_${randomBytes(24).toString('base64url')}`;
      const answer = await fetch(`${guarded.url}/v1/receipt/emit`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${guess}` },
        body: emitA,
      });
      await answer.arrayBuffer();
      if (answer.status === 401) unauthorized += 1;
      else if (answer.status === 429) limitedAt = guesses + 1;
      else failures.push(`a guessed key answered ${answer.status}`);
    }
    if (limitedAt === 0) failures.push(`700 guessed keys never met the rate limit (${unauthorized} were 401)`);

    const summary = {
      seconds: Number(seconds.toFixed(1)),
      connections,
      routes: requests.length,
      requests: result.requests.total,
      rps: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      status: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count])),
      '5xx': result['5xx'],
      errors: result.errors,
      timeouts: result.timeouts,
      warmupSeconds,
      rssStartMiB: Number(rssStart.toFixed(1)),
      rssEndMiB: Number(rssEnd.toFixed(1)),
      rssPeakMiB: Number(rssPeak.toFixed(1)),
      rssGrowthPercent: Number((growth * 100).toFixed(1)),
      rssGrowthTargetPercent: 10,
      rssEvery10sMiB: rssSeries,
      isolationRounds,
      isolationWindowSeconds: ISOLATION_WINDOW_S,
      receiptsCheckedUnderLoad: receiptsUnderLoad,
      receiptsInWholeLogs,
      crossTenantRequests: crossAnswers,
      guessedKeys401: unauthorized,
      rateLimitedAtGuess: limitedAt,
      firstAnswers: perRoute,
      failures,
    };
    console.log(
      `bench/soak.ts: ${duration} s at ${connections} connections over ${requests.length} requests of every route (warm-up ${warmupSeconds} s, until RSS settled; ledger cache ${ledgerCache} MiB); node ${process.version}, ${os.cpus().length} cores`,
    );
    console.log(
      `requests ${summary.requests} (${summary.rps}/s), p50 ${summary.p50} ms, p99 ${summary.p99} ms, answers ${JSON.stringify(summary.status)}, 5xx ${summary['5xx']}`,
    );
    console.log(
      `service RSS ${summary.rssStartMiB} MiB after warm-up, ${summary.rssEndMiB} MiB at the end: growth ${summary.rssGrowthPercent}% (target: under 10%${quick ? ', judged on the full soak only' : ''}; ${quick ? 'not judged' : growth < 0.1 ? 'met' : 'MISSED'}), peak ${summary.rssPeakMiB} MiB`,
    );
    console.log(`service RSS every 10 s of the soak (MiB): ${rssSeries.join(', ') || '(under 10 s)'}`);
    console.log(
      `target: zero 5xx (${summary['5xx'] === 0 ? 'met' : 'MISSED'}); zero connection errors and timeouts (${summary.errors + summary.timeouts === 0 ? 'met' : 'MISSED'})`,
    );
    console.log(
      `tenant isolation: ${isolationRounds} rounds of both tenants' evidence of the last ${ISOLATION_WINDOW_S} s under load (${receiptsUnderLoad} receipts), then both ${finalSince === undefined ? 'whole logs' : `logs' last ${FINAL_WHOLE_MAX_S} s`} (${receiptsInWholeLogs} receipts); ${crossAnswers} cross-tenant requests all 403`,
    );
    console.log(`key guessing: ${unauthorized} guesses 401, then 429 at guess ${limitedAt}`);
    if (failures.length > 0) {
      console.error(`FAILED:\n${failures.map((failure) => `  ${failure}`).join('\n')}`);
      process.exitCode = 1;
    }
    console.log(`soak result: ${JSON.stringify(summary)}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(guessHome, { recursive: true, force: true });
  }
}

await main();
