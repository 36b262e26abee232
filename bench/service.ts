/**
 * bench/service.ts: the HTTP service under load (autocannon, 127.0.0.1), beside its raw parts
 * measured in the same run.
 *
 * Rows: `GET /status`, `POST /v1/receipt/verify` (a standard receipt), `POST /v1/receipt/emit`
 * (standard, a scale tenant: no quota), a bare Fastify route returning a constant, and a bare
 * Fastify POST taking the verify request's body and answering a constant of its reply's size.
 * Two more rows: a serial route of the bare app that keeps its thread busy for the emit floor's
 * time a request, and one busy for the service's HTTP-thread CPU per receipt (Linux): the p50
 * and p99 this host gives a server of that cost at this many connections.
 * Under the table: the verify route's floor, the in-process verification plus the bare POST, and
 * the emit route's, the bare POST plus signing plus a ledger row in group commits; the p99 the
 * emit floor allows; and, on Linux,
 * the CPU time per request of the service's HTTP thread, its other threads and autocannon. The
 * service runs as `evroom serve` in its own process with its defaults (its HTTP thread and, for
 * the verify route, one verification worker per core but one), autocannon in this one: all on
 * the same two cores. Ratios: verify against the in-process standard-receipt verification rate of this
 * process (the same work bench/verify.ts measures; the higher of two measurements, just before and
 * just after the verify row), emit against the bare route.
 *
 * Targets (issue "The HTTP service"): verify >= 0.6 of in-process, emit >= 0.4 of bare, p99
 * under 25 ms at 32 connections, zero non-2xx.
 *
 * Options: --duration S (per row, default 10), --connections N (default 32), --quick (1 s rows,
 * for CI: checks that everything answers 2xx, not the targets), --write-baseline.
 *
 * `--database postgres` (issue 27) compares the stores in one run instead: the emit and verify
 * routes on SQLite (one node), on PostgreSQL with one node and with two nodes sharing one
 * database (the load split evenly between them, a tenant per node), each row with req/s, p50 and
 * p99, and the CPU each side spends per request: the service's processes (every thread) and the
 * database's (the PostgreSQL server and its backends; on SQLite the database runs inside the
 * service). PostgreSQL is a throwaway server from Debian's package (the tests' harness,
 * src-main/test-support/postgres.ts) made durable for the run (fsync, full-page writes and
 * synchronous commits on, as SQLite's synchronous = FULL). Every node runs with --no-anchor,
 * SQLite too, so the rows differ by their store alone. Before the HTTP rows, the store floor:
 * each store's `issuance.commit` in this process (groups of 16 standard receipts, each with a
 * quota and a log leaf, as the emit route stores them), receipts/s and the CPU per receipt of
 * this process and of the PostgreSQL server: the per-receipt database cost the model of N nodes
 * in bench/README.md rests on. Without `serve --database` (before issue 27's CLI lands) the HTTP
 * rows are SQLite's alone.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { utf8Encode } from '../src-shared/crypto';
import { jcs } from '../src-shared/json';
import type { JsonValue } from '../src-shared/json/types';
import { signedStandardReceipt } from './fixtures';
import { verifyReport } from '../src-main/operations/verify';
import { issueProfileReceipt } from '../src-shared/formats/profile';
import { toVerifiedReceipt, verifyReceiptBytes } from '../src-main/core/receipt-facts';
import { insertReceipts, type NewReceipt } from '../src-main/ledger';
import { loadServiceKeys } from '../src-main/operations/service-keys';
import { openWorkspace, workspaceVerifyContext, type Workspace } from '../src-main/operations/workspace';
import { openServiceStore, type ServiceStore } from '../src-main/operations/service-store';
import type { IssueItem } from '../src-main/ledger/store/issuance';
import { bestRate, readBaseline, type Baseline } from './harness';

const BIN = fileURLToPath(new URL('../bin/evroom.mjs', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baselines/service.json', import.meta.url));

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}
const quick = process.argv.includes('--quick');
const database = argument('database');
if (database !== undefined && database !== 'postgres') {
  console.error('bench/service.ts: --database takes `postgres` (a throwaway server of the tests’ harness)');
  process.exit(2);
}
const duration = Number(argument('duration') ?? (quick ? 1 : 10));
const connections = Number(argument('connections') ?? 32);

/** CPU time (ms) of whole processes so far (every thread), from /proc (Linux; 0 for one gone). */
function processCpu(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

/** The PostgreSQL server's processes: the postmaster (postmaster.pid's first line) and its children. */
function postgresPids(dataDir: string): number[] {
  let postmaster: number;
  try {
    postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  const pids = [postmaster];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

function evroom(home: string, args: string[]): string {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, EVROOM_HOME: home },
  });
  if (result.status !== 0) throw new Error(`evroom ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function startChild(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  pattern: RegExp,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = pattern.exec(output);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`${command} exited with ${String(code)}: ${output}`)));
  });
}

/**
 * A bare Fastify app in its own process like the service: one constant route, one POST route
 * that takes a JSON body as bytes (as the service does) and answers a constant of REPLY_BYTES,
 * the floor of HTTP's share of a verify request of that body and reply size, and a serial route
 * (`POST /busy?us=N`) that keeps its one thread busy for N µs a request and answers a constant:
 * the latency a server gets at this many connections on this host when each request costs its
 * thread that much and nothing else (no worker, no disk, almost no garbage).
 */
const BARE_SERVER = `
const Fastify = require('fastify');
const app = Fastify({ logger: false });
const reply = JSON.stringify({ pad: 'x'.repeat(Number(process.env.REPLY_BYTES) - 10) });
app.removeAllContentTypeParsers();
app.addContentTypeParser(/^application\\/json/, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
app.get('/constant', async () => ({ ok: true }));
app.post('/echo-size', async (_request, response) => response.type('application/json; charset=utf-8').send(reply));
app.post('/busy', async (request) => {
  const end = process.hrtime.bigint() + BigInt(Number(request.query.us)) * 1000n;
  while (process.hrtime.bigint() < end);
  return { ok: true };
});
app.listen({ host: '127.0.0.1', port: 0 }).then((address) => console.log('bare at ' + address));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  ratio?: number;
  ratioOf?: string;
  target?: string;
}

/** CPU time per request (µs) of a row: the service's HTTP thread, its other threads (verification workers, V8's and libuv's), and this process (autocannon). */
interface CpuShare {
  http: number;
  other: number;
  client: number;
}

/**
 * CPU time (ms) of each thread of a process so far, from /proc (Linux; undefined elsewhere).
 * utime and stime are in clock ticks, 100 a second on Linux.
 */
function threadCpu(pid: number | undefined): Map<number, number> | undefined {
  if (pid === undefined || !fs.existsSync(`/proc/${pid}/task`)) return undefined;
  const times = new Map<number, number>();
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(Number(task), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

async function load(
  name: string,
  options: Record<string, unknown>,
  servicePid?: number,
): Promise<Row & { cpu?: CpuShare }> {
  const before = threadCpu(servicePid);
  const client = process.cpuUsage();
  const result = await autocannon({ connections, duration, pipelining: 1, ...options });
  const clientUs = process.cpuUsage(client);
  const after = threadCpu(servicePid);
  const row = {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
  if (before === undefined || after === undefined || result.requests.total === 0) return row;
  const perRequest = (ms: number) => (ms * 1000) / result.requests.total;
  let http = 0;
  let other = 0;
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === servicePid) http += used;
    else other += used;
  }
  return {
    ...row,
    cpu: {
      http: perRequest(http),
      other: perRequest(other),
      client: (clientUs.user + clientUs.system) / result.requests.total,
    },
  };
}

/** Receipts per group commit in the emit floor: about what the service's commits hold at 32 connections. */
const FLOOR_BATCH = 16;

/**
 * The emit route's own work on the HTTP thread, measured in this process on one core: signing a
 * standard receipt (JCS, Ed25519, schema) and storing it in a real ledger (synchronous = FULL) in
 * transactions of {@link FLOOR_BATCH} receipts, as the service's group commit does. Checking
 * the signed receipt runs on a verification worker and is not counted.
 */
function emitFloorParts(home: string): { signRate: number; rowRate: number } {
  const workspace = openWorkspace(path.join(home, 'emit-floor'));
  try {
    const signer = loadServiceKeys(workspace).active;
    const fields = (index: number) => ({
      agent_did: 'did:web:agent.example.com',
      content: { sha256: index.toString(16).padStart(64, '0'), type: 'text/plain' },
      smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
      hktn_context: { reputation_tier: 'unrated' },
    });
    const now = new Date();
    const signRate = bestRate(1000, quick ? 2 : 5, () => {
      for (let index = 0; index < 1000; index += 1)
        issueProfileReceipt('standard', fields(index), signer.seed, signer.key_id, workspace.crypto, { now });
    });
    const context = workspaceVerifyContext(workspace, {
      advertised: [{ key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }],
    });
    const batches = quick ? 20 : 100;
    const rows: NewReceipt[] = Array.from({ length: batches * FLOOR_BATCH * 3 }, (_, index) => {
      const bytes = utf8Encode(
        jcs(
          issueProfileReceipt('standard', fields(index), signer.seed, signer.key_id, workspace.crypto, {
            now,
          }) as JsonValue,
        ),
      );
      const facts = toVerifiedReceipt(verifyReceiptBytes(bytes, context));
      return {
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        issuer_key_id: facts.issuer_key_id,
        source: { kind: 'service', ref: 'tenant:bench' },
      };
    });
    let next = 0;
    const rowRate = bestRate(batches * FLOOR_BATCH, 3, () => {
      for (let batch = 0; batch < batches; batch += 1) {
        workspace.ledger.runInTransaction((database) => insertReceipts(database, rows.slice(next, next + FLOOR_BATCH)));
        next += FLOOR_BATCH;
      }
    });
    return { signRate, rowRate };
  } finally {
    workspace.close();
  }
}

/** A row of the store comparison: the load on one or more nodes, and the CPU each side spent. */
interface StoreRow {
  store: string;
  route: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  requests: number;
  /** CPU µs per request of the service's processes (all threads), and of the database's (PostgreSQL only). */
  serviceCpu: number;
  databaseCpu: number | undefined;
}

/**
 * The same load split evenly over `targets` (each its own autocannon at connections / targets),
 * with the CPU the service's processes and the database's processes spent meanwhile. Rates
 * add up; p50 and p99 are the slower node's.
 */
async function storeLoad(
  store: string,
  route: string,
  targets: { url: string; headers: Record<string, string>; body: string }[],
  servicePids: number[],
  databasePids: () => number[],
): Promise<StoreRow> {
  const serviceBefore = processCpu(servicePids);
  const databaseBefore = processCpu(databasePids());
  const results = await Promise.all(
    targets.map((target) =>
      autocannon({
        url: target.url,
        method: 'POST',
        headers: target.headers,
        body: target.body,
        connections: Math.max(1, Math.round(connections / targets.length)),
        duration,
        pipelining: 1,
      }),
    ),
  );
  const serviceMs = processCpu(servicePids) - serviceBefore;
  const databasePidsNow = databasePids();
  const databaseMs = databasePidsNow.length === 0 ? undefined : processCpu(databasePidsNow) - databaseBefore;
  const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
  const perRequest = (ms: number): number => (requests === 0 ? 0 : (ms * 1000) / requests);
  return {
    store,
    route,
    rps: results.reduce((sum, result) => sum + result.requests.average, 0),
    p50: Math.max(...results.map((result) => result.latency.p50)),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    non2xx: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
    requests,
    serviceCpu: perRequest(serviceMs),
    databaseCpu: databaseMs === undefined ? undefined : perRequest(databaseMs),
  };
}

/** A store's group commits measured in this process: the issuance method alone, no HTTP. */
interface StoreFloor {
  store: string;
  receipts: number;
  rate: number;
  /** CPU µs per receipt of this process (the store's adapter: SQLite itself, or node-postgres). */
  clientCpu: number;
  /** CPU µs per receipt of the PostgreSQL server's processes; undefined on SQLite. */
  databaseCpu: number | undefined;
}

/**
 * Issued receipts stored through a store's `issuance.commit` in group commits of
 * {@link FLOOR_BATCH}, each receipt with a quota and a log leaf as the emit route stores it, from
 * `lanes` commits in flight at once (PostgreSQL: as many pool connections): the database's own
 * cost per receipt, which the model of N nodes rests on.
 */
async function storeFloor(
  name: string,
  store: ServiceStore,
  workspace: Workspace,
  databasePids: () => number[],
): Promise<StoreFloor> {
  const signer = loadServiceKeys(workspace).active;
  const context = workspaceVerifyContext(workspace, {
    advertised: [{ key_id: signer.key_id, algorithm: 'Ed25519', public_key: signer.public_key }],
  });
  const tenant = 'floor';
  await store.identity.createTenant({ id: tenant, tier: 'scale', at: Date.now() });
  const now = new Date();
  const period = now.toISOString().slice(0, 7);
  const count = (quick ? 20 : 150) * FLOOR_BATCH;
  const items: IssueItem[] = Array.from({ length: count }, (_, index) => {
    const bytes = utf8Encode(
      jcs(
        issueProfileReceipt(
          'standard',
          {
            agent_did: 'did:web:agent.example.com',
            content: { sha256: index.toString(16).padStart(64, '0'), type: 'text/plain' },
            smsh: { sealed: false, declaration: 'No sealed evidence accompanies this receipt.' },
            hktn_context: { reputation_tier: 'unrated' },
          },
          signer.seed,
          signer.key_id,
          workspace.crypto,
          { now },
        ) as JsonValue,
      ),
    );
    const facts = toVerifiedReceipt(verifyReceiptBytes(bytes, context));
    const leafInput = new Uint8Array(bytes.length + 1);
    leafInput.set(bytes, 1);
    return {
      row: {
        receipt_sha256: facts.receipt_sha256,
        raw: bytes,
        report: facts.report,
        receipt_id: facts.receipt_id,
        issued_at: facts.issued_at,
        issuer_key_id: facts.issuer_key_id,
        ref: `tenant:${tenant}`,
      },
      quota: { subject: `tenant:${tenant}`, period, limit: 1_000_000_000 },
      leaf: { tenant, hash: workspace.crypto.sha256(leafInput) },
    };
  });
  const lanes = store.engine === 'postgres' ? 4 : 1;
  let next = 0;
  const databaseBefore = processCpu(databasePids());
  const client = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) {
        const batch = items.slice(next, next + FLOOR_BATCH);
        next += FLOOR_BATCH;
        const outcomes = await store.issuance.commit(batch);
        if (outcomes.some((outcome) => !outcome.stored)) throw new Error(`${name}: a floor receipt was not stored`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const clientUs = process.cpuUsage(client);
  const pids = databasePids();
  return {
    store: name,
    receipts: count,
    rate: count / seconds,
    clientCpu: (clientUs.user + clientUs.system) / count,
    databaseCpu: pids.length === 0 ? undefined : ((processCpu(pids) - databaseBefore) * 1000) / count,
  };
}

/** `psql` of the newest Debian PostgreSQL, as the tests' harness finds its binaries. */
function psqlBinary(): string {
  const root = '/usr/lib/postgresql';
  const version = fs
    .readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(root, name, 'bin', 'psql')))
    .sort((a, b) => Number(b) - Number(a))[0];
  if (version === undefined) throw new Error('no psql under /usr/lib/postgresql');
  return path.join(root, version, 'bin', 'psql');
}

/**
 * `--database postgres`: the emit and verify routes per store in one run (see the file's
 * comment): SQLite with one node, PostgreSQL with one and with two nodes on one database.
 */
async function compareStores(): Promise<void> {
  // The harness is for tests; the bench borrows it (Debian's binaries, a temporary folder).
  const { postgresAvailable, startTestPostgres } = await import('../src-main/test-support/postgres');
  if (!postgresAvailable()) {
    console.error('bench/service.ts --database postgres: PostgreSQL is not installed (apt-get install postgresql).');
    process.exitCode = 1;
    return;
  }
  const help = spawnSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
  if (!`${help.stdout}${help.stderr}`.includes('--database')) {
    console.error(
      'bench/service.ts --database postgres: this evroom has no `serve --database` yet (issue 27): the HTTP rows are SQLite’s alone; the store floor runs on both.',
    );
  }
  const withPostgres = `${help.stdout}${help.stderr}`.includes('--database');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bench-stores-'));
  const children: ChildProcess[] = [];
  const postgres = await startTestPostgres();
  try {
    {
      // Durable, as the SQLite ledger is (synchronous = FULL): the harness runs its server with
      // fsync and full-page writes off on its command line, which no setting overrides, so the
      // bench stops it and starts it again on the same folder and port with PostgreSQL's
      // defaults for both (the harness's stop still stops it and removes the folder).
      await postgres.kill();
      startDurable(postgres.dataDir, postgres.port);
      execPsql(psqlBinary(), postgres.url, 'SHOW fsync', 'on');
    }
    const { receipt, keyFile } = signedStandardReceipt('did:svc:bench:k1');
    const verifyBody = JSON.stringify({ document: receipt, keys: keyFile });
    const json = { 'content-type': 'application/json' };
    const emitBody = JSON.stringify({
      agent_did: 'did:web:agent.example.com',
      content_sha256: 'b'.repeat(64),
      content_type: 'text/plain',
    });

    /** Nodes on one store: a data folder each (the second holds a copy of the first's service keys). */
    async function nodes(
      name: string,
      count: number,
      databaseUrl: string | undefined,
    ): Promise<{ urls: string[]; keys: string[]; pids: number[] }> {
      const homes = Array.from({ length: count }, (_, index) => path.join(root, `${name}-${index + 1}`));
      const storeArgs = databaseUrl === undefined ? [] : ['--database', databaseUrl];
      const keys: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const tenant = `bench-${name}-${index + 1}`;
        evroom(homes[0]!, ['tenants', 'create', tenant, '--tier', 'scale', ...storeArgs]);
        keys.push(
          (
            JSON.parse(evroom(homes[0]!, ['apikeys', 'issue', '--tenant', tenant, '--json', ...storeArgs])) as {
              key: string;
            }
          ).key,
        );
      }
      const urls: string[] = [];
      const pids: number[] = [];
      for (const [index, home] of homes.entries()) {
        // Every node of one database holds the same service keys (docs/deploy.md): the first's.
        if (index > 0) fs.cpSync(path.join(homes[0]!, 'service'), path.join(home, 'service'), { recursive: true });
        const node = await startChild(
          process.execPath,
          [BIN, 'serve', '--port', '0', '--quiet', '--rate-limit', '1000000', '--no-anchor', ...storeArgs],
          { ...process.env, EVROOM_HOME: home },
          /service at (http:\/\/127\.0\.0\.1:\d+)/,
        );
        children.push(node.child);
        urls.push(node.url);
        pids.push(node.child.pid ?? 0);
      }
      return { urls, keys, pids };
    }

    const rows: StoreRow[] = [];
    // The store floor: group commits through each store's issuance method, in this process.
    const floors: StoreFloor[] = [];
    {
      const workspace = openWorkspace(path.join(root, 'floor'));
      try {
        const sqlite = await openServiceStore(workspace);
        floors.push(await storeFloor('SQLite', sqlite, workspace, () => []));
        const pg = await openServiceStore(workspace, await postgres.createDatabase('floor'));
        try {
          floors.push(await storeFloor('PostgreSQL', pg, workspace, () => postgresPids(postgres.dataDir)));
        } finally {
          await pg.close();
        }
      } finally {
        workspace.close();
      }
    }

    // A fresh database for each PostgreSQL setup: its nodes register their service keys there.
    const setups: { store: string; count: number; postgres: boolean }[] = [
      { store: 'SQLite, 1 node', count: 1, postgres: false },
      ...(!withPostgres
        ? []
        : [
            { store: 'PostgreSQL, 1 node', count: 1, postgres: true },
            { store: 'PostgreSQL, 2 nodes', count: 2, postgres: true },
          ]),
    ];
    for (const [index, setup] of setups.entries()) {
      const databaseUrl = setup.postgres ? await postgres.createDatabase(`bench${index + 1}`) : undefined;
      const running = await nodes(`store${index + 1}`, setup.count, databaseUrl);
      const databasePids = (): number[] => (databaseUrl === undefined ? [] : postgresPids(postgres.dataDir));
      rows.push(
        await storeLoad(
          setup.store,
          'POST /v1/receipt/emit (standard)',
          running.urls.map((node, at) => ({
            url: `${node}/v1/receipt/emit?profile=standard`,
            headers: { ...json, authorization: `Bearer ${running.keys[at] ?? ''}` },
            body: emitBody,
          })),
          running.pids,
          databasePids,
        ),
      );
      rows.push(
        await storeLoad(
          setup.store,
          'POST /v1/receipt/verify (standard)',
          running.urls.map((node) => ({ url: `${node}/v1/receipt/verify`, headers: json, body: verifyBody })),
          running.pids,
          databasePids,
        ),
      );
      for (const child of children.splice(0)) child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    console.log(
      `bench/service.ts --database postgres: ${connections} connections split evenly over the nodes, ${duration} s a row, every node its own process with --no-anchor; node ${process.version}, ${os.cpus().length} cores (service, database and autocannon share them)`,
    );
    console.log('');
    console.log(
      [
        'store'.padEnd(20),
        'route'.padEnd(36),
        'req/s'.padStart(8),
        'p50 ms'.padStart(7),
        'p99 ms'.padStart(7),
        'non-2xx'.padStart(8),
        'service CPU µs/req'.padStart(19),
        'database CPU µs/req'.padStart(20),
      ].join(' '),
    );
    for (const row of rows) {
      console.log(
        [
          row.store.padEnd(20),
          row.route.padEnd(36),
          Math.round(row.rps).toLocaleString('en-US').padStart(8),
          String(row.p50).padStart(7),
          String(row.p99).padStart(7),
          String(row.non2xx).padStart(8),
          row.serviceCpu.toFixed(0).padStart(19),
          (row.databaseCpu === undefined ? 'in the service' : row.databaseCpu.toFixed(0)).padStart(20),
        ].join(' '),
      );
    }
    console.log('');
    console.log(
      `store floor: issuance.commit in this process, groups of ${FLOOR_BATCH} standard receipts each with a quota and a log leaf (PostgreSQL: 4 commits in flight, durable)`,
    );
    for (const floor of floors)
      console.log(
        `  ${floor.store.padEnd(11)} ${Math.round(floor.rate).toLocaleString('en-US').padStart(7)} receipts/s; CPU per receipt: this process ${floor.clientCpu.toFixed(0)} µs, ${floor.databaseCpu === undefined ? 'the database runs in it' : `the PostgreSQL server ${floor.databaseCpu.toFixed(0)} µs`} (${floor.receipts} receipts)`,
      );
    const pgFloor = floors.find((floor) => floor.databaseCpu !== undefined);
    if (pgFloor?.databaseCpu !== undefined && pgFloor.databaseCpu > 0)
      console.log(
        `model from the floor: one PostgreSQL core stores about ${Math.round(1e6 / pgFloor.databaseCpu).toLocaleString('en-US')} receipts/s (group commits of ${FLOOR_BATCH}); a database host of C cores saturates near ${Math.round(1e6 / pgFloor.databaseCpu).toLocaleString('en-US')} x C receipts/s, whatever the number of nodes`,
      );
    // The model (bench/README.md): a PostgreSQL host of C cores saturates at C * 1e6 / D
    // receipts a second, D its CPU µs per receipt; N nodes give min(N * R1, that).
    const pgEmit = rows.find((row) => row.store === 'PostgreSQL, 1 node' && row.route.includes('emit'));
    if (pgEmit?.databaseCpu !== undefined && pgEmit.databaseCpu > 0) {
      const perCore = 1e6 / pgEmit.databaseCpu;
      const perNode = 1e6 / pgEmit.serviceCpu;
      console.log('');
      console.log(
        `model: one PostgreSQL core takes ${Math.round(perCore).toLocaleString('en-US')} receipts/s (${pgEmit.databaseCpu.toFixed(0)} µs of database CPU a receipt); one node core ${Math.round(perNode).toLocaleString('en-US')} receipts/s (${pgEmit.serviceCpu.toFixed(0)} µs of service CPU); so a database host of C cores saturates at about ${Math.round(perCore).toLocaleString('en-US')} x C receipts/s, reached by about ${(perCore / perNode).toFixed(1)} x C node cores`,
      );
    }
    console.log(
      'target: none binding for the store comparison (issue 27 asks for the figures and the model); zero non-2xx on every row',
    );
    const failures = rows.filter((row) => row.non2xx > 0);
    if (failures.length > 0) {
      console.error(`non-2xx answers: ${failures.map((row) => `${row.store} ${row.route} ${row.non2xx}`).join(', ')}`);
      process.exitCode = 1;
    }
    console.log(`stores result: ${JSON.stringify({ rows, floors })}`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await postgres.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Runs one SQL statement through psql on the harness's server (trust authentication on
 * 127.0.0.1) and checks its one-line answer.
 */
function execPsql(psql: string, url: string, statement: string, expected: string): void {
  const result = spawnSync(psql, [url, '-v', 'ON_ERROR_STOP=1', '-qAtc', statement], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`psql: ${statement}: ${result.stderr}`);
  if (result.stdout.trim() !== expected) throw new Error(`psql: ${statement} answered ${result.stdout.trim()}`);
}

/**
 * Starts the harness's stopped server again with fsync and full-page writes on (PostgreSQL's
 * defaults), as the server's user when this runs as root, as the harness does.
 */
function startDurable(dataDir: string, port: number): void {
  const pgCtl = path.join(path.dirname(psqlBinary()), 'pg_ctl');
  const folder = path.dirname(dataDir);
  const args = [
    '-D',
    dataDir,
    '-l',
    path.join(folder, 'server.log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=200`,
    'start',
  ];
  const asRoot = process.getuid?.() === 0;
  const result = asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', pgCtl, ...args], { encoding: 'utf8' })
    : spawnSync(pgCtl, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pg_ctl start: ${result.stderr}${result.stdout}`);
}

async function main(): Promise<void> {
  if (database === 'postgres') {
    await compareStores();
    return;
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-bench-service-'));
  const children: ChildProcess[] = [];
  try {
    evroom(home, ['tenants', 'create', 'bench', '--tier', 'scale']);
    const { key } = JSON.parse(evroom(home, ['apikeys', 'issue', '--tenant', 'bench', '--json'])) as { key: string };

    // The standard receipt to verify, signed by a key sent along with it.
    const { receipt, keyFile, crypto, seed } = signedStandardReceipt('did:svc:bench:k1');
    const verifyBody = JSON.stringify({ document: receipt, keys: keyFile });

    // In process: the same request's work (strict parse, verify) on one core.
    const documentBytes = utf8Encode(jcs(receipt as JsonValue));
    const context = {
      crypto,
      pinned: [],
      advertised: [
        { key_id: 'did:svc:bench:k1', algorithm: 'Ed25519' as const, public_key: crypto.ed25519PublicKey(seed) },
      ],
      secrets: [],
      now: new Date(),
    };
    const check = verifyReport(documentBytes, context);
    if (check.status !== 'PASS') throw new Error(`the bench receipt does not verify: ${check.status}`);
    const inProcessRate = () =>
      bestRate(2000, quick ? 2 : 5, () => {
        for (let index = 0; index < 2000; index += 1) verifyReport(documentBytes, context);
      });

    const { signRate, rowRate } = emitFloorParts(home);

    const service = await startChild(
      process.execPath,
      [BIN, 'serve', '--port', '0', '--quiet', '--rate-limit', '1000000'],
      { ...process.env, EVROOM_HOME: home },
      /service at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    children.push(service.child);
    const replyBytes = Buffer.byteLength(JSON.stringify(check));
    const bare = await startChild(
      process.execPath,
      ['-e', BARE_SERVER],
      { ...process.env, NODE_PATH: path.join(process.cwd(), 'node_modules'), REPLY_BYTES: String(replyBytes) },
      /bare at (http:\/\/127\.0\.0\.1:\d+)/,
    );
    children.push(bare.child);

    const json = { 'content-type': 'application/json' };
    const bareRow = await load('bare Fastify route (constant)', { url: `${bare.url}/constant` });
    const status = await load('GET /status', { url: `${service.url}/status` });
    const barePost = await load('bare Fastify POST (verify-sized)', {
      url: `${bare.url}/echo-size`,
      method: 'POST',
      headers: json,
      body: verifyBody,
    });
    // The in-process rate just before and just after the verify row; the higher one is the
    // ratio's denominator, so a slow moment of a shared host cannot flatter the ratio.
    const inProcessBefore = inProcessRate();
    const verify = await load(
      'POST /v1/receipt/verify (standard)',
      { url: `${service.url}/v1/receipt/verify`, method: 'POST', headers: json, body: verifyBody },
      service.child.pid,
    );
    const inProcessAfter = inProcessRate();
    const inProcess = Math.max(inProcessBefore, inProcessAfter);
    const emit = await load(
      'POST /v1/receipt/emit (standard)',
      {
        url: `${service.url}/v1/receipt/emit?profile=standard`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: JSON.stringify({
          agent_did: 'did:web:agent.example.com',
          content_sha256: 'b'.repeat(64),
          content_type: 'text/plain',
        }),
      },
      service.child.pid,
    );
    // What p99 the emit route could have: serial routes that keep one thread busy for the emit
    // floor's time a request (the bare POST, signing and a ledger row; see emitFloorParts) and
    // for the time the service's HTTP thread spent on each receipt in the emit row.
    const emitFloor = 1 / (1 / barePost.rps + 1 / signRate + 1 / rowRate);
    const floorMicros = Math.round(1e6 / emitFloor);
    const serialFloor = await load('serial route, emit floor time', {
      url: `${bare.url}/busy?us=${floorMicros}`,
      method: 'POST',
      headers: json,
      body: '{}',
    });
    const httpMicros = emit.cpu === undefined ? undefined : Math.round(emit.cpu.http);
    const serialHttp =
      httpMicros === undefined
        ? undefined
        : await load('serial route, emit HTTP-thread time', {
            url: `${bare.url}/busy?us=${httpMicros}`,
            method: 'POST',
            headers: json,
            body: '{}',
          });
    verify.ratio = verify.rps / inProcess;
    verify.ratioOf = 'in-process verify';
    verify.target = '>= 0.60';
    emit.ratio = emit.rps / bareRow.rps;
    emit.ratioOf = 'bare route';
    emit.target = '>= 0.40';

    const rows = [
      bareRow,
      barePost,
      status,
      verify,
      emit,
      serialFloor,
      ...(serialHttp === undefined ? [] : [serialHttp]),
    ];
    const baseline: Baseline | null = readBaseline(BASELINE);
    console.log(
      `bench/service.ts: ${connections} connections, ${duration} s a row, service and bare route each in its own process; node ${process.version}, ${os.cpus().length} cores`,
    );
    console.log(
      `in-process standard receipt verification: ${Math.round(inProcess).toLocaleString('en-US')}/s (one core; the higher of ${Math.round(inProcessBefore).toLocaleString('en-US')}/s just before the verify row and ${Math.round(inProcessAfter).toLocaleString('en-US')}/s just after)`,
    );
    console.log('');
    console.log(
      [
        'row'.padEnd(38),
        'req/s'.padStart(8),
        'p50 ms'.padStart(7),
        'p99 ms'.padStart(7),
        'non-2xx'.padStart(8),
        '  ratio',
        '  target',
        '  baseline ratio',
      ].join(' '),
    );
    for (const row of rows) {
      const base = baseline?.rows[row.name]?.ratio;
      const p99ok = row.p99 < 25 ? '' : ' (p99 over 25 ms)';
      console.log(
        [
          row.name.padEnd(38),
          Math.round(row.rps).toLocaleString('en-US').padStart(8),
          String(row.p50).padStart(7),
          String(row.p99).padStart(7),
          String(row.non2xx).padStart(8),
          row.ratio === undefined ? '       ' : `  ${row.ratio.toFixed(2)} of ${row.ratioOf}`,
          row.target === undefined
            ? ''
            : `  ${row.target}${(row.ratio ?? 0) >= Number(row.target.slice(3)) ? ' ok' : ' BELOW'}`,
          base === undefined ? '' : `  ${base.toFixed(2)}`,
          p99ok,
        ].join(' '),
      );
    }
    // The floor of the verify route: the verification as in process, plus HTTP's share of a
    // request of that body and reply size (the bare POST), one after the other on one core.
    const verifyFloor = 1 / (1 / inProcess + 1 / barePost.rps);
    console.log('');
    console.log(
      `floor of the verify route (in-process verification + the bare POST, per request): ${Math.round(verifyFloor).toLocaleString('en-US')}/s = ${(verifyFloor / inProcess).toFixed(2)} of in-process (target 0.60${verifyFloor / inProcess < 0.6 ? ', beyond the floor' : ''}); the service reaches ${(verify.rps / verifyFloor).toFixed(2)} of that floor`,
    );
    // The floor of the emit route's HTTP thread (emitFloor): the bare POST, signing, and a ledger
    // row in group commits, one after the other (the check of the signed receipt is on a worker).
    console.log(
      `floor of the emit route (the bare POST + signing ${Math.round(signRate).toLocaleString('en-US')}/s + a ledger row in commits of ${FLOOR_BATCH} ${Math.round(rowRate).toLocaleString('en-US')}/s, per request, one thread): ${Math.round(emitFloor).toLocaleString('en-US')}/s = ${(emitFloor / bareRow.rps).toFixed(2)} of the bare route (target 0.40${emitFloor / bareRow.rps < 0.4 ? ', beyond the floor' : ''}); the service reaches ${(emit.rps / emitFloor).toFixed(2)} of that floor; at that rate ${connections} connections wait ${((connections / emitFloor) * 1000).toFixed(1)} ms a request on average`,
    );
    // The p99 the emit route's floor allows on this host at this many connections.
    console.log(
      `p99 of the emit route: a serial route busy ${floorMicros} µs a request (the emit floor's time) answers p50 ${serialFloor.p50} ms, p99 ${serialFloor.p99} ms (target under 25 ms${serialFloor.p99 >= 25 ? ', beyond the floor' : ''})${serialHttp === undefined ? '' : `; busy ${httpMicros ?? 0} µs (the HTTP thread's CPU per receipt in the emit row), p50 ${serialHttp.p50} ms, p99 ${serialHttp.p99} ms; the service: p50 ${emit.p50} ms, p99 ${emit.p99} ms`}`,
    );
    // Where the two cores go: CPU time per request of each part, from /proc.
    for (const row of [verify, emit]) {
      if (row.cpu === undefined) continue;
      const { http, other, client } = row.cpu;
      console.log(
        `CPU per request, ${row.name}: the service's HTTP thread ${http.toFixed(0)} µs, its other threads (verification worker, V8, libuv) ${other.toFixed(0)} µs, autocannon ${client.toFixed(0)} µs; ${(((http + other + client) * row.rps) / 1e6).toFixed(2)} cores busy at ${Math.round(row.rps).toLocaleString('en-US')} req/s`,
      );
    }
    const failures = rows.filter((row) => row.non2xx > 0);
    if (failures.length > 0) {
      console.error(`non-2xx answers: ${failures.map((row) => `${row.name} ${row.non2xx}`).join(', ')}`);
      process.exitCode = 1;
    }
    if (process.argv.includes('--write-baseline')) {
      const recorded = {
        recorded: new Date().toISOString(),
        machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}, node ${process.version}`,
        connections,
        duration,
        inProcessVerifyRate: Math.round(inProcess),
        emitFloorParts: { signRate: Math.round(signRate), rowRate: Math.round(rowRate), batch: FLOOR_BATCH },
        serialRouteMicroseconds: {
          emitFloorTime: floorMicros,
          ...(httpMicros === undefined ? {} : { emitHttpThreadTime: httpMicros }),
        },
        rows: Object.fromEntries(
          rows.map((row: Row & { cpu?: CpuShare }) => [
            row.name,
            {
              rate: Math.round(row.rps),
              p50: row.p50,
              p99: row.p99,
              non2xx: row.non2xx,
              ...(row.ratio === undefined ? {} : { ratio: Number(row.ratio.toFixed(3)) }),
              ...(row.cpu === undefined
                ? {}
                : {
                    cpuMicrosecondsPerRequest: {
                      httpThread: Math.round(row.cpu.http),
                      otherThreads: Math.round(row.cpu.other),
                      autocannon: Math.round(row.cpu.client),
                    },
                  }),
            },
          ]),
        ),
      };
      fs.writeFileSync(BASELINE, `${JSON.stringify(recorded, null, 2)}\n`);
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.rmSync(home, { recursive: true, force: true });
  }
}

await main();
