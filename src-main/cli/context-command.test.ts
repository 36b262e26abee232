import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jcs } from '../../src-shared/json';
import { startAnvil, type AnvilProcess } from '../anchor/anvil';
import { anchorAccount, ChainClient } from '../anchor/chain';
import { nodeSha256, postAnchorBatch, type PostedBatch } from '../anchor/test-support';
import { runCli } from './main';

// `evroom context` and `evroom anchor verify --context` in process: real files, a real anvil,
// a real data folder (EVROOM_HOME).

async function evroom(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = collector();
  const err = collector();
  const code = await runCli(args, { out: out.stream, err: err.stream, color: false, interactive: false });
  return { code, stdout: out.text(), stderr: err.text() };
}

function collector(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { stream, text: () => text };
}

const RECEIPTS = [
  { receipt_id: 'c-1', issued_at: '2026-11-23T09:00:00Z', payload_sha256: 'aa'.repeat(32) },
  { receipt_id: 'c-2', issued_at: '2026-11-23T09:00:01Z', payload_sha256: 'bb'.repeat(32) },
];
const digestOf = (value: unknown): Uint8Array => nodeSha256(new TextEncoder().encode(jcs(value as never)));

let directory: string;
let anvil: AnvilProcess;
let chain: ChainClient;
let batch: PostedBatch;
let savedHome: string | undefined;
const account = anchorAccount(generatePrivateKey());
const file = (name: string): string => join(directory, name);

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'evroom-context-cli-'));
  savedHome = process.env.EVROOM_HOME;
  process.env.EVROOM_HOME = file('home');
  anvil = await startAnvil();
  chain = new ChainClient(anvil.rpcUrl);
  await chain.fundOnDevelopmentChain(account.address);
  batch = await postAnchorBatch(chain, account, RECEIPTS.map(digestOf), 0);
  await chain.mineOnDevelopmentChain(2);
  RECEIPTS.forEach((receipt, index) => {
    writeFileSync(file(`receipt-${index}.json`), JSON.stringify(receipt));
    writeFileSync(file(`record-${index}.json`), JSON.stringify(batch.records[index]));
  });
}, 60_000);

afterAll(async () => {
  if (savedHome === undefined) delete process.env.EVROOM_HOME;
  else process.env.EVROOM_HOME = savedHome;
  await anvil?.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe('evroom context export and anchor verify --context', () => {
  it('exports a pack with progress on stderr, and verifies each anchor from it', async () => {
    const exported = await evroom([
      'context',
      'export',
      '--out',
      file('pack.zip'),
      '--rpc',
      anvil.rpcUrl,
      file('record-0.json'),
      file('record-1.json'),
    ]);
    expect(exported.stderr).toContain('context export: Headers 3 of 3');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/Wrote .*pack\.zip \(ctx_[0-9a-f]{32}, \d+ bytes\)/);
    expect(exported.stdout).toContain('1 anchor transaction, headers');
    expect(exported.stdout).toMatch(/signed by did:key:z/);

    const verified = await evroom([
      'anchor',
      'verify',
      file('receipt-1.json'),
      file('record-1.json'),
      '--context',
      file('pack.zip'),
      '--confirmations',
      '3',
      '--json',
    ]);
    expect(verified.code).toBe(0);
    const result = JSON.parse(verified.stdout) as {
      anchor_status: string;
      steps: {
        status: string;
        evidence?: string;
        context?: { head_trust: string; head: { number: number; hash: string } };
      }[];
    };
    expect(result.anchor_status).toBe('verified_with_context');
    expect(result.steps.map((step) => step.evidence ?? null)).toEqual([null, 'context', 'context']);
    const head = result.steps[2]?.context?.head as { number: number; hash: string };
    expect(result.steps[2]?.context?.head_trust).toBe('claimed');

    const human = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--context',
      file('pack.zip'),
      '--pin',
      `${head.number}:${head.hash}`,
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('VERIFIED WITH CONTEXT');
    expect(human.stdout).toContain(`head ${head.number} (checked)`);
    expect(human.stdout).toContain('anchor_status: verified_with_context');

    const signer = /signed by (did:key:\S+)/.exec(exported.stdout)?.[1] as string;
    const bySigner = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--context',
      file('pack.zip'),
      '--signer',
      signer,
    ]);
    expect(bySigner.code).toBe(0);
    const otherSigner = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--context',
      file('pack.zip'),
      '--signer',
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    ]);
    expect(otherSigner.code).toBe(1);
    expect(otherSigner.stdout).toContain(
      `The context pack is signed by ${signer}, not by did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK as required.`,
    );

    const deeper = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--context',
      file('pack.zip'),
      '--confirmations',
      '4',
    ]);
    expect(deeper.code).toBe(1);
    expect(deeper.stdout).toContain('anchor_status: failed');

    const wrongPin = await evroom([
      'anchor',
      'verify',
      file('receipt-0.json'),
      file('record-0.json'),
      '--context',
      file('pack.zip'),
      '--pin',
      `${head.number}:0x${'ab'.repeat(32)}`,
    ]);
    expect(wrongPin.code).toBe(1);
    expect(wrongPin.stdout).toContain('is pinned as');
  });

  it('refuses what it cannot do, before doing anything', async () => {
    const cases: [string[], RegExp][] = [
      [['context', 'export', '--rpc', anvil.rpcUrl, file('record-0.json')], /name the pack to write with --out/],
      [['context', 'export', '--out', file('x.zip'), file('record-0.json')], /name the chain with --rpc URL/],
      [
        ['context', 'export', '--out', file('x.zip'), '--rpc', 'ftp://x', file('record-0.json')],
        /--rpc must be an http or https URL/,
      ],
      [['context', 'export', '--out', file('x.txt'), '--rpc', anvil.rpcUrl], /--out must name a \.zip file/],
      [
        ['context', 'export', '--out', file('x.zip'), '--rpc', anvil.rpcUrl, file('nope.json')],
        /nope\.json: no such file/,
      ],
      [
        ['context', 'export', '--out', file('pack.zip'), '--rpc', anvil.rpcUrl, file('record-0.json')],
        /exists; give --force/,
      ],
      [
        ['context', 'export', '--out', file('x.zip'), '--rpc', anvil.rpcUrl, '--note', 'n'],
        /--note does not apply here/,
      ],
      [['context', 'frobnicate'], /unknown subcommand 'frobnicate'/],
      [['context'], /name a subcommand/],
      [['context', 'pin', '0', '5', `0x${'ab'.repeat(32)}`], /CHAIN_ID must be a whole number from 1/],
      [['context', 'pin', '31337', '5', '0x12'], /hash must be 0x and 64 hex/],
      [['context', 'remove', 'ctx_nothing'], /is not a pack id/],
      [
        [
          'anchor',
          'verify',
          file('receipt-0.json'),
          file('record-0.json'),
          '--context',
          file('pack.zip'),
          '--rpc',
          anvil.rpcUrl,
        ],
        /exclude each other: give one, not both/,
      ],
      [
        [
          'anchor',
          'verify',
          file('receipt-0.json'),
          file('record-0.json'),
          '--offline',
          '--pin',
          `1:0x${'ab'.repeat(32)}`,
        ],
        /--pin checks a context pack/,
      ],
      [
        [
          'anchor',
          'verify',
          file('receipt-0.json'),
          file('record-0.json'),
          '--context',
          file('pack.zip'),
          '--pin',
          '12',
        ],
        /--pin must be NUMBER:0xHASH/,
      ],
      [
        ['anchor', 'verify', file('receipt-0.json'), file('record-0.json'), '--context', file('missing.zip')],
        /missing\.zip: no such file/,
      ],
      [
        ['anchor', 'verify', file('receipt-0.json'), file('record-0.json'), '--offline', '--signer', 'did:key:z6Mk'],
        /--signer names who must have signed/,
      ],
      [
        [
          'anchor',
          'verify',
          file('receipt-0.json'),
          file('record-0.json'),
          '--context',
          file('pack.zip'),
          '--signer',
          'did:web:x',
        ],
        /--signer must be an Ed25519 did:key/,
      ],
      [
        ['anchor', 'verify', file('receipt-0.json'), file('record-0.json'), '--context', file('record-0.json')],
        /zip|bundle/i,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await evroom(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
  });

  it('imports, lists, pins and removes packs in the data folder', async () => {
    const imported = await evroom(['context', 'import', file('pack.zip'), '--json']);
    expect(imported.code).toBe(0);
    const summary = JSON.parse(imported.stdout) as { pack_id: string; head: { number: number; hash: string } };
    const again = await evroom(['context', 'import', file('pack.zip')]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `Imported ${summary.pack_id}: 1 anchor transaction, head block ${summary.head.number} of chain 31337`,
    );
    expect(again.stderr).toBe('');
    const listed = await evroom(['context', 'list']);
    expect(listed.stdout).toContain(summary.pack_id);
    expect(
      (await evroom(['context', 'pin', '31337', String(summary.head.number), summary.head.hash, '--note', 'explorer']))
        .code,
    ).toBe(0);
    expect((await evroom(['context', 'pins'])).stdout).toContain(
      `block ${summary.head.number}  ${summary.head.hash}  (explorer)`,
    );
    expect((await evroom(['context', 'unpin', '31337', String(summary.head.number)])).code).toBe(0);
    expect((await evroom(['context', 'pins'])).stdout).toContain('No block hash is pinned.');
    expect((await evroom(['context', 'remove', summary.pack_id])).code).toBe(0);
    expect((await evroom(['context', 'list'])).stdout).toContain('No context pack is imported.');
    const gone = await evroom(['context', 'remove', summary.pack_id]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`No context pack ${summary.pack_id} is imported`);
  });
});
