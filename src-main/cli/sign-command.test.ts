import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, hexEncode, utf8Encode } from '../../src-shared/crypto';
import { wearableExampleObservation } from '../../src-shared/formats/wearable';
import { serializeKeyFile } from '../../src-shared/verify/key-file';
import { verifyDocument } from '../../src-shared/verify/verify';
import { createNodeCryptoProvider } from '../core/node-crypto-provider';
import { SIGN_FORMATS } from './commands/sign';
import { createPrivateKey, publicKeyEntry, serializePrivateKeyFile, type PrivateKey } from './key-files';
import { runCli } from './main';

// `evroom sign` for every format, then `evroom verify` over everything it wrote in one process.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createNodeCryptoProvider();
const sha = (text: string): string => hexEncode(crypto.sha256(utf8Encode(text)));

interface Line {
  input: string;
  format: string;
  status: string;
  trust: { status: string; label?: string };
}

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

function spawn(args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

const EXPECTED_FORMAT: Record<string, string> = {
  classical: 'classical',
  countersigner: 'countersigner',
  sealed: 'sealed',
  envelope: 'envelope/svc-receipt-v1',
  wearable: 'wearable/r2.0.0',
  nano: 'profile/nano',
  standard: 'profile/standard',
  pq: 'profile/pq',
  'legacy-standard': 'legacy/proof_tier',
  'legacy-pq': 'legacy/proof_tier',
  typed: 'typed/proof.demand',
  'typed-sigr': 'typed/sigr.chain',
  'typed-pq': 'typed-pq',
  'sigr-chain': 'sigr-chain-pq',
};

describe('evroom sign', () => {
  let dir: string;
  const key: Record<string, string> = {};
  const input: Record<string, string> = {};
  let keysFile: string;
  let secretsFile: string;
  const signedFiles: Record<string, string> = {};

  function writeKey(name: string, privateKey: PrivateKey): void {
    key[name] = join(dir, `${name}.private.json`);
    writeFileSync(key[name], serializePrivateKeyFile(privateKey), { mode: 0o600 });
    chmodSync(key[name], 0o600);
  }

  function writeInput(name: string, value: unknown): string {
    input[name] = join(dir, `${name}.input.json`);
    writeFileSync(input[name], typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    return input[name];
  }

  function signArgs(format: string, inputName: string, extra: string[] = []): string[] {
    const keyName =
      format === 'typed-pq' || format === 'sigr-chain'
        ? 'pq'
        : format === 'envelope' || format === 'wearable'
          ? 'service'
          : 'issuer';
    return ['sign', format, '--key', key[keyName] ?? '', input[inputName] ?? '', ...extra];
  }

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-sign-'));
    const keys = {
      issuer: createPrivateKey('Ed25519', crypto, { seed: new Uint8Array(32).fill(1), label: 'Test issuer' }),
      service: createPrivateKey('Ed25519', crypto, {
        seed: new Uint8Array(32).fill(2),
        keyId: 'did:svc:test:service',
        label: 'Test service',
      }),
      requester: createPrivateKey('Ed25519', crypto, { seed: new Uint8Array(32).fill(3) }),
      operator: createPrivateKey('Ed25519', crypto, {
        seed: new Uint8Array(32).fill(4),
        keyId: 'did:web:operator.example.com',
      }),
      device: createPrivateKey('Ed25519', crypto, { seed: new Uint8Array(32).fill(5) }),
      pq: createPrivateKey('ML-DSA-65', crypto, {
        seed: new Uint8Array(32).fill(6),
        keyId: 'did:svc:test:pq1',
        label: 'Test PQ issuer',
      }),
    };
    for (const [name, privateKey] of Object.entries(keys)) writeKey(name, privateKey);
    keysFile = join(dir, 'keys.json');
    writeFileSync(keysFile, serializeKeyFile(Object.values(keys).map(publicKeyEntry)));
    secretsFile = join(dir, 'secrets.json');
    writeFileSync(
      secretsFile,
      JSON.stringify({ secrets: [{ key_id: 'test/seal', key: b64uEncode(new Uint8Array(32).fill(7)) }] }),
    );

    writeInput('classical', '{"sequence":3,"amount":1.50,"memo":"coffee"}');
    writeInput('countersigner', {
      record: { receipt: 'r-1', sha256: sha('r-1') },
      operator_signature: sha('operator signature'),
      operator_signature_scheme: 'ml-dsa-65',
    });
    writeInput('envelope', {
      receipt_id: 'rcp_01JD0000000000000000000000',
      request: { hash: `sha256:${sha('request')}`, purpose: 'audit' },
      response: { hash: `sha256:${sha('response')}`, sealed: false },
    });
    const observation = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
    delete observation['device_signature'];
    delete observation['device_public_key'];
    writeInput('wearable', observation);
    writeInput('nano', { ok: true, a: 'did:web:agent.example.com', h: `sha256:${sha('hello')}`, t: 'text/plain' });
    const content = { sha256: sha('hello'), type: 'text/plain' };
    const standard = {
      agent_did: 'did:web:agent.example.com',
      content,
      settlement_reference: { rail: 'stablecoin', chain_id: 8453, asset: 'USDC' },
      smsh: { sealed: false, declaration: 'No sealed evidence.' },
      hktn_context: { reputation_tier: 'new' },
    };
    const pq = {
      agent_did: 'did:web:agent.example.com',
      content,
      crypto_agile_metadata: { current_alg: 'Ed25519', signature_posture: 'classical', envelope_posture: 'pq-ready' },
      pq_posture: 'declared',
      auditor_verifier: true,
    };
    writeInput('standard', standard);
    writeInput('pq', pq);
    writeInput('legacy-standard', standard);
    writeInput('legacy-pq', pq);
    writeInput('typed', {
      contract_type: 'proof.demand',
      contract_id: 'demand-1',
      body: {
        demander: 'did:web:acme.example',
        respondent: 'did:web:supplier.example',
        subject_sha256: sha('subject'),
        required: ['receipt'],
        due_by: '2026-07-01T00:00:00.000Z',
      },
    });
    writeInput('typed-sigr', {
      contract_type: 'sigr.chain',
      body: { links: [{ statement_sha256: sha('one') }, { statement_sha256: sha('two') }] },
    });
    writeInput('typed-pq', {
      fragments: [
        { text: 'Hello', type: 'reasoning' },
        { text: 'Final answer: hello.', type: 'final' },
      ],
    });
    writeInput('sigr-chain', {
      run_id: 'run-1',
      steps: [
        { step_id: 'plan', kind: 'plan', seq: 0, parents: [], input: { goal: 'answer' } },
        { step_id: 'final', kind: 'final', seq: 1, parents: ['plan'], output: { answer: 42 } },
      ],
    });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('signs every format; each document passes verify with the public keys, and is trusted with them pinned', async () => {
    const formats = [...SIGN_FORMATS.filter((format) => format !== 'sealed'), 'typed-sigr', 'sealed'];
    for (const format of formats) {
      const out = join(dir, `${format}.signed.json`);
      const extra: Record<string, string[]> = {
        envelope: ['--requester-key', key['requester'] ?? '', '--operator-key', key['operator'] ?? ''],
        wearable: ['--device-key', key['device'] ?? '', '--issued-at', '2026-03-14T09:27:00.000Z'],
        nano: ['--issued-at', '2026-06-01T12:00:00.000Z'],
        typed: ['--issued-at', '2026-06-01T12:00:00.000Z'],
      };
      const args =
        format === 'sealed'
          ? ['sign', 'sealed', '--secret', secretsFile, signedFiles['classical'] ?? '', '--out', out]
          : format === 'typed-sigr'
            ? signArgs('typed', 'typed-sigr', ['--out', out])
            : signArgs(format, format, [...(extra[format] ?? []), '--out', out]);
      const result = await evroom(args);
      expect([format, result.code, result.stderr]).toEqual([
        format,
        0,
        `evroom: wrote a ${format === 'typed-sigr' ? 'typed' : format} document to ${out}\n`,
      ]);
      expect(result.stdout).toBe('');
      signedFiles[format] = out;
    }
    expect(Object.keys(signedFiles)).toHaveLength(SIGN_FORMATS.length + 1);
    // Number spellings survive signing and indenting.
    expect(readFileSync(signedFiles['classical'] ?? '', 'utf8')).toContain('"amount": 1.50');

    const names = Object.keys(signedFiles);
    const files = names.map((name) => signedFiles[name] ?? '');
    const unpinned = spawn(['verify', '--json', '--keys', keysFile, '--secret', secretsFile, ...files]);
    expect(unpinned.stderr).toBe('');
    expect(unpinned.code).toBe(0);
    expect(
      lines(unpinned.stdout).map((line, index) => [names[index], line.format, line.status, line.trust.status]),
    ).toEqual(names.map((name) => [name, EXPECTED_FORMAT[name], 'PASS', 'unpinned']));
    const pinned = spawn([
      'verify',
      '--json',
      '--require-trusted',
      '--trust',
      keysFile,
      '--secret',
      secretsFile,
      ...files,
    ]);
    expect(pinned.code).toBe(0);
    expect(lines(pinned.stdout).map((line, index) => [names[index], line.status, line.trust.status])).toEqual(
      names.map((name) => [name, 'PASS', 'trusted']),
    );
    // The wearable receipt carries the device key that signed the observation, and the service's key id.
    const wearable = JSON.parse(readFileSync(signedFiles['wearable'] ?? '', 'utf8')) as {
      key_id: string;
      ts: number;
      signed_body: Record<string, unknown>;
    };
    expect(wearable.key_id).toBe('did:svc:test:service');
    expect(wearable.ts).toBe(1_773_480_420);
    expect(wearable.signed_body['signature_relation']).toBe('valid');
    const sigr = JSON.parse(readFileSync(signedFiles['typed-sigr'] ?? '', 'utf8')) as {
      issuer: string;
      key_id: string;
      body: { links: { signer_key_id: string }[] };
    };
    expect(sigr.body.links.map((link) => link.signer_key_id)).toEqual([sigr.key_id, sigr.key_id]);
    expect(sigr.issuer).toBe(sigr.key_id);
    // --issued-at sets the issuing instant: nano's Unix seconds and typed's TS.
    expect((JSON.parse(readFileSync(signedFiles['nano'] ?? '', 'utf8')) as { i: number }).i).toBe(
      Date.parse('2026-06-01T12:00:00.000Z') / 1000,
    );
    expect((JSON.parse(readFileSync(signedFiles['typed'] ?? '', 'utf8')) as { issued_at: string }).issued_at).toBe(
      '2026-06-01T12:00:00.000Z',
    );
  });

  it('reads standard input and writes standard output, as a real process', () => {
    const result = spawn(
      ['sign', 'nano', '--key', key['issuer'] ?? '', '-'],
      readFileSync(input['nano'] ?? '', 'utf8'),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = verifyDocument(result.stdout, { crypto, pinned: [], advertised: [], secrets: [], now: new Date() });
    expect([report.format, report.status]).toEqual(['profile/nano', 'PASS']);
  });

  it('writes an envelope with a role left unsigned, and warns that it verifies as INDETERMINATE', async () => {
    const result = await evroom(signArgs('envelope', 'envelope'));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('signatures.service');
    expect(result.stderr).toContain('evroom: warning: signature.requester is unavailable');
    expect(result.stderr).toContain(
      'evroom: warning: the document verifies as INDETERMINATE until those checks are available',
    );
  });

  it('warns when a key file may be read by other users, and replaces --out only with --force', async () => {
    const loose = join(dir, 'loose.private.json');
    writeFileSync(loose, readFileSync(key['issuer'] ?? ''));
    chmodSync(loose, 0o640);
    const out = join(dir, 'loose.signed.json');
    const first = await evroom(['sign', 'classical', '--key', loose, input['classical'] ?? '', '--out', out]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      `evroom: warning: key file ${loose} may be read by other users (mode 640); run: chmod 600 ${loose}`,
    );
    const again = await evroom([
      'sign',
      'classical',
      '--key',
      key['issuer'] ?? '',
      input['classical'] ?? '',
      '--out',
      out,
    ]);
    expect([again.code, again.stderr]).toEqual([2, `evroom: ${out}: already exists; pass --force to replace it\n`]);
    expect(
      (
        await evroom([
          'sign',
          'classical',
          '--key',
          key['issuer'] ?? '',
          input['classical'] ?? '',
          '--out',
          out,
          '--force',
        ])
      ).code,
    ).toBe(0);
  });

  it.each<[string, () => string[], string | RegExp]>([
    [
      'an unknown format',
      () => ['sign', 'pdf', '--key', key['issuer'] ?? '', input['nano'] ?? ''],
      "sign: unknown format 'pdf'; formats: classical, countersigner, sealed,",
    ],
    [
      'a missing key',
      () => ['sign', 'nano', input['nano'] ?? ''],
      'sign nano: --key KEYFILE is required (a private key file from evroom keys new)',
    ],
    ['a missing input', () => ['sign', 'nano', '--key', key['issuer'] ?? ''], 'sign nano: name the INPUT.json file'],
    [
      'a public key file as --key',
      () => ['sign', 'nano', '--key', keysFile, input['nano'] ?? ''],
      /^key file .*keys\.json: This is a public key file/,
    ],
    [
      'an ML-DSA key for nano',
      () => ['sign', 'nano', '--key', key['pq'] ?? '', input['nano'] ?? ''],
      /^sign nano: --key .*pq\.private\.json holds an ML-DSA-65 key; nano documents are signed with Ed25519$/,
    ],
    [
      'an Ed25519 key for typed-pq',
      () => ['sign', 'typed-pq', '--key', key['issuer'] ?? '', input['typed-pq'] ?? ''],
      /holds an Ed25519 key; typed-pq documents are signed with ML-DSA-65$/,
    ],
    [
      'an option of another format',
      () => [...signArgs('nano', 'nano'), '--device-key', key['device'] ?? ''],
      'sign nano: --device-key does not apply to nano (it applies to: wearable)',
    ],
    [
      'a key for sealed',
      () => ['sign', 'sealed', '--key', key['issuer'] ?? '', '--secret', secretsFile, input['nano'] ?? ''],
      'sign sealed: --key does not apply to sealed',
    ],
    [
      'an unknown secret id',
      () => ['sign', 'sealed', '--secret', secretsFile, '--key-id', 'other', input['nano'] ?? ''],
      /^sign sealed: secret file .*secrets\.json has no secret 'other' \(it has: test\/seal\)$/,
    ],
    [
      'sealing something that is not a receipt',
      () => ['sign', 'sealed', '--secret', secretsFile, input['typed-pq'] ?? ''],
      /^sign sealed: .* is not a document evroom verifies \(unknown, MALFORMED\)/,
    ],
    [
      'a bad --issued-at',
      () => [...signArgs('nano', 'nano'), '--issued-at', 'yesterday'],
      "sign nano: --issued-at 'yesterday' is not a timestamp",
    ],
    [
      'a key id of another method than this workstation issues under',
      () => [...signArgs('nano', 'nano'), '--key-id', 'did:hive:typed-demo'],
      'sign nano: --key-id "did:hive:typed-demo" cannot name an issuing key (did:svc:<id>, did:web:<host>[:path] or an Ed25519 did:key)',
    ],
    [
      'a key id of another key',
      () => [...signArgs('nano', 'nano'), '--key-id', 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'],
      /is the did:key of another key/,
    ],
    [
      'INPUT that is not strict JSON',
      () => ['sign', 'nano', '--key', key['issuer'] ?? '', writeInput('duplicate', '{"ok":true,"ok":false}')],
      /^sign nano: .*duplicate\.input\.json: Malformed JSON \(duplicate_name\) at \/ok/,
    ],
    [
      'a number JCS cannot sign exactly',
      () => ['sign', 'typed-pq', '--key', key['pq'] ?? '', writeInput('big', '{"fragments":[12345678901234567890]}')],
      /at \/fragments\/0: the number 12345678901234567890 cannot be signed exactly/,
    ],
    [
      'an unknown member',
      () => [
        'sign',
        'nano',
        '--key',
        key['issuer'] ?? '',
        writeInput('extra', { ok: true, a: 'did:web:a.example', h: `sha256:${sha('x')}`, t: 'text/plain', note: 1 }),
      ],
      /at \/note: unknown member "note"; nano takes ok, a, h, t$/,
    ],
    [
      'a field the schema refuses',
      () => [
        'sign',
        'nano',
        '--key',
        key['issuer'] ?? '',
        writeInput('badh', { ok: true, a: 'did:web:a.example', h: 'md5:00', t: 'text/plain' }),
      ],
      /^sign nano: .*badh\.input\.json: Cannot issue this nano receipt: \/h /,
    ],
    [
      'a wearable field out of range',
      () => [...signArgs('wearable', 'bad-wearable'), '--device-key', key['device'] ?? ''],
      /^sign wearable: .*The wearable observation cannot be issued: \/sequence_no: /,
    ],
    [
      'a wearable without the device key',
      () => signArgs('wearable', 'wearable'),
      'sign wearable: --device-key KEYFILE is required to sign the observation',
    ],
    [
      'a typed contract that breaks its rule',
      () => signArgs('typed', 'late-demand'),
      /^sign typed: the signed document would not verify \(MISMATCH\): \/body\/due_by: /,
    ],
    [
      'a typed contract of an unknown type',
      () => ['sign', 'typed', '--key', key['issuer'] ?? '', writeInput('badtype', { contract_type: 'x.y', body: {} })],
      /badtype\.input\.json at \/contract_type: must be one of authority\.delegation, proof\.demand/,
    ],
  ])('refuses %s with one line, exit 2, and writes nothing', async (_name, args, message) => {
    if (input['bad-wearable'] === undefined) {
      writeInput('bad-wearable', {
        ...(JSON.parse(readFileSync(input['wearable'] ?? '', 'utf8')) as object),
        sequence_no: -1,
      });
      const demand = JSON.parse(readFileSync(input['typed'] ?? '', 'utf8')) as { body: Record<string, unknown> };
      demand.body['due_by'] = '2020-01-01T00:00:00.000Z';
      writeInput('late-demand', demand);
    }
    const out = join(dir, 'never.json');
    const result = await evroom([...args(), '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const [line, ...more] = result.stderr.trim().split('\n');
    expect(more).toEqual([]);
    const text = (line ?? '').replace(/^evroom: /, '');
    if (typeof message === 'string') expect(text.startsWith(message), text).toBe(true);
    else expect(text).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it('prints help with every format and an example per kind of key', () => {
    const help = spawn(['sign', '--help']);
    expect(help.code).toBe(0);
    for (const format of SIGN_FORMATS) expect(help.stdout).toContain(`  ${format} `);
    expect(help.stdout).toContain('evroom sign wearable --key keys/service.private.json --device-key');
  });
});
