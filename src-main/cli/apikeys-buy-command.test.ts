import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_ACCOUNT_KEYS } from '../anchor/stablecoin';
import { runEvroom, startServeChild, stopServeChild, type ServedChild } from '../test-support/serve-child';

// The whole purchase as buyers and operators meet it: `evroom serve` on the embedded chain with
// its real token, `evroom apikeys buy` paying from a development account, the key arriving in the
// outbox (or through a real SMTP server, or sealed to a did:key and opened with `apikeys pickup`),
// and the key working on the emit route. The key never appears in any command's output but the
// buyer's own pickup.

const EMIT = { agent_did: 'did:web:agent.example.com', input: 'Bought with evroom.', content_type: 'text/plain' };
const KEY_PATTERN = /svc_(?:pro|scale)_[A-Za-z0-9_-]{32}/;

let root: string;
const children: ServedChild[] = [];

async function serve(home: string, args: string[] = []): Promise<ServedChild & { rpc: string }> {
  const served = await startServeChild(home, args);
  children.push(served);
  if (served.rpc === undefined) throw new Error(`no chain address in: ${served.stderr()}`);
  return { ...served, rpc: served.rpc };
}

const stop = stopServeChild;
const evroom = runEvroom;

function walletKeyFile(folder: string, index: number): string {
  const file = path.join(folder, `wallet-${index}`);
  fs.writeFileSync(file, `${DEVELOPMENT_ACCOUNT_KEYS[index]}\n`, { mode: 0o600 });
  return file;
}

async function emitWith(base: string, key: string): Promise<number> {
  const response = await fetch(`${base}/v1/receipt/emit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(EMIT),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-buy-'));
});

afterAll(async () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(root, { recursive: true, force: true });
});

describe('evroom apikeys buy and pickup against evroom serve on the embedded chain', () => {
  it('buys a pro key for an e-mail contact: one .eml in the outbox, and the key works; the key is printed nowhere', async () => {
    const home = path.join(root, 'outbox');
    const served = await serve(home);
    try {
      expect(served.stderr()).toContain(`Bought keys are delivered into ${path.join(home, 'outbox')}`);
      const bought = await evroom(home, [
        'apikeys',
        'buy',
        '--api',
        served.url,
        '--rpc',
        served.rpc,
        '--wallet-key-file',
        walletKeyFile(root, 5),
        '--tier',
        'pro',
        '--contact',
        'alice@example.com',
        '--json',
      ]);
      expect(bought.code, bought.stderr).toBe(0);
      const answer = JSON.parse(bought.stdout) as {
        tx_hash: string;
        status: { state: string; tier: string; term: string; delivery: { channel: string; state: string } };
      };
      expect(answer.status).toMatchObject({
        state: 'issued',
        tier: 'pro',
        term: 'month',
        delivery: { channel: 'outbox', state: 'delivered' },
      });
      expect(bought.stderr).toMatch(
        /^Paid 99\.000000 to 0x[0-9a-f]{40} on anvil-local in transaction 0x[0-9a-f]{64}\.$/m,
      );
      const eml = fs.readFileSync(path.join(home, 'outbox', `${answer.tx_hash}.eml`), 'latin1');
      expect(eml).toMatch(/^To: alice@example\.com\r$/m);
      const key = KEY_PATTERN.exec(eml)?.[0];
      expect(key).toMatch(/^svc_pro_/);
      // The buyer is told where to use the key: the service's address, as it listens.
      expect(eml).toContain(`Service:  ${served.url}\r\n`);
      expect(eml).toContain(`curl -X POST "${served.url}/v1/receipt/emit?profile=standard"`);
      expect(await emitWith(served.url, key!)).toBe(201);
      // Operators see the payment, never the key.
      const payments = await evroom(home, ['apikeys', 'payments', '--json']);
      expect(payments.code, payments.stderr).toBe(0);
      expect(payments.stdout).toContain(answer.tx_hash);
      for (const text of [bought.stdout, bought.stderr, payments.stdout, payments.stderr, served.stderr()])
        expect(text).not.toContain(key!);
      // A second purchase by the same contact extends the same tenant's term: two keys, one tenant.
      const again = await evroom(home, [
        'apikeys',
        'buy',
        '--api',
        served.url,
        '--rpc',
        served.rpc,
        '--wallet-key-file',
        walletKeyFile(root, 5),
        '--tier',
        'pro',
        '--contact',
        'ALICE@example.com',
        '--annual',
        '--json',
      ]);
      expect(again.code, again.stderr).toBe(0);
      const list = JSON.parse((await evroom(home, ['apikeys', 'payments', '--json'])).stdout) as {
        payments: { tx_hash: string; tenant_id: string; term: string; expires_at: number }[];
      };
      const [second, first] = list.payments;
      expect(first?.tenant_id).toBe(second?.tenant_id);
      expect(second?.term).toBe('year');
      expect((second?.expires_at ?? 0) - (first?.expires_at ?? 0)).toBeGreaterThanOrEqual(365 * 86_400_000 - 120_000);
    } finally {
      await stop(served);
    }
  }, 180_000);

  it('seals the key to a did:key contact: only its key file opens it with apikeys pickup', async () => {
    const home = path.join(root, 'sealed');
    const keys = path.join(root, 'keys');
    const made = await evroom(home, ['keys', 'new', '--alg', 'ed25519', '--out', keys, '--name', 'buyer', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const did = (JSON.parse(made.stdout) as { key_id: string }).key_id;
    const other = await evroom(home, ['keys', 'new', '--alg', 'ed25519', '--out', keys, '--name', 'other', '--json']);
    expect(other.code, other.stderr).toBe(0);
    const served = await serve(home);
    try {
      const bought = await evroom(home, [
        'apikeys',
        'buy',
        '--api',
        served.url,
        '--rpc',
        served.rpc,
        '--wallet-key-file',
        walletKeyFile(root, 6),
        '--tier',
        'scale',
        '--contact',
        did,
        '--json',
      ]);
      expect(bought.code, bought.stderr).toBe(0);
      const answer = JSON.parse(bought.stdout) as { tx_hash: string; status: { delivery: { channel: string } } };
      expect(answer.status.delivery.channel).toBe('sealed');
      expect(bought.stderr).toContain('sealed to your did:key: fetch it with evroom apikeys pickup');
      expect(fs.existsSync(path.join(home, 'outbox', `${answer.tx_hash}.eml`))).toBe(false);
      const wrong = await evroom(home, [
        'apikeys',
        'pickup',
        '--api',
        served.url,
        '--tx',
        answer.tx_hash,
        '--key-file',
        path.join(keys, 'other.private.json'),
      ]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(`is sealed to ${did}`);
      expect(wrong.stdout).toBe('');
      const picked = await evroom(home, [
        'apikeys',
        'pickup',
        '--api',
        served.url,
        '--tx',
        answer.tx_hash,
        '--key-file',
        path.join(keys, 'buyer.private.json'),
      ]);
      expect(picked.code, picked.stderr).toBe(0);
      const key = picked.stdout.trim();
      expect(key).toMatch(/^svc_scale_[A-Za-z0-9_-]{32}$/);
      expect(await emitWith(served.url, key)).toBe(201);
      expect(bought.stdout + bought.stderr + served.stderr()).not.toContain(key);
    } finally {
      await stop(served);
    }
  }, 180_000);

  it('sends the key through a real SMTP server given with --smtp', async () => {
    const received: { to: string[]; data: string }[] = [];
    const server = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            to: session.envelope.rcptTo.map((address) => address.address),
            data: Buffer.concat(chunks).toString('latin1'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;
    const home = path.join(root, 'smtp');
    const served = await serve(home, [
      '--smtp',
      `smtp://127.0.0.1:${port}`,
      '--public-url',
      'https://keys.example.org/',
    ]);
    try {
      expect(served.stderr()).toContain(`Bought keys are delivered by SMTP through`);
      const bought = await evroom(home, [
        'apikeys',
        'buy',
        '--api',
        served.url,
        '--rpc',
        served.rpc,
        '--wallet-key-file',
        walletKeyFile(root, 7),
        '--tier',
        'pro',
        '--contact',
        'example.org',
        '--json',
      ]);
      expect(bought.code, bought.stderr).toBe(0);
      const answer = JSON.parse(bought.stdout) as { tx_hash: string; status: { delivery: { channel: string } } };
      expect(answer.status.delivery.channel).toBe('smtp');
      expect(received).toHaveLength(1);
      // A domain's key goes to its postmaster (RFC 5321 4.5.1).
      expect(received[0]?.to).toEqual(['postmaster@example.org']);
      expect(received[0]?.data).toContain(`Message-ID: <${answer.tx_hash}@evidence-room.invalid>`);
      // --public-url: the address buyers reach the service at, behind its proxy.
      expect(received[0]?.data).toContain('Service:  https://keys.example.org\r\n');
      const key = KEY_PATTERN.exec(received[0]?.data ?? '')?.[0];
      expect(await emitWith(served.url, key!)).toBe(201);
      expect(fs.existsSync(path.join(home, 'outbox'))).toBe(false);
    } finally {
      await stop(served);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 180_000);

  it('refuses bad buyer input before paying anything', async () => {
    const home = path.join(root, 'refusals');
    const wallet = walletKeyFile(root, 8);
    const loose = path.join(root, 'loose-wallet');
    fs.writeFileSync(loose, `${DEVELOPMENT_ACCOUNT_KEYS[8]}\n`, { mode: 0o644 });
    const base = ['apikeys', 'buy', '--api', 'http://127.0.0.1:9', '--rpc', 'http://127.0.0.1:9'];
    for (const [args, message] of [
      [
        [...base, '--wallet-key-file', wallet, '--contact', 'a@example.com'],
        /give the tier \(pro or scale\) with --tier/,
      ],
      [
        [...base, '--wallet-key-file', wallet, '--tier', 'gold', '--contact', 'a@example.com'],
        /--tier must be pro or scale, not "gold"/,
      ],
      [
        [...base, '--wallet-key-file', wallet, '--tier', 'enterprise', '--contact', 'a@example.com'],
        /enterprise is sold by contact/,
      ],
      [[...base, '--wallet-key-file', wallet, '--tier', 'pro'], /give where the key goes/],
      [
        [...base, '--wallet-key-file', wallet, '--tier', 'pro', '--contact', 'a@example.com', '--wait', '-1'],
        /--wait must be whole seconds/,
      ],
      [
        ['apikeys', 'pickup', '--api', 'http://127.0.0.1:9', '--tx', '0x12', '--key-file', wallet],
        /--tx must be 0x and 64 hex characters/,
      ],
      [[...base, '--wallet-key-file', wallet, '--tier', 'pro', '--contact', 'a@example.com'], /could not be reached/],
    ] as const) {
      const run = await evroom(home, [...args]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stdout).toBe('');
    }
    // A wallet key file others may read is refused before the chain is asked (the key is never printed).
    const served = await serve(home);
    try {
      const run = await evroom(home, [
        'apikeys',
        'buy',
        '--api',
        served.url,
        '--rpc',
        served.rpc,
        '--wallet-key-file',
        loose,
        '--tier',
        'pro',
        '--contact',
        'a@example.com',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/wallet key file .* is readable by others \(mode 644\); run chmod 600/);
      expect(run.stderr).not.toContain(DEVELOPMENT_ACCOUNT_KEYS[8]!.slice(2));
      const payments = await evroom(home, ['apikeys', 'payments', '--json']);
      expect(JSON.parse(payments.stdout)).toEqual({ payments: [] });
    } finally {
      await stop(served);
    }
  }, 180_000);
});
