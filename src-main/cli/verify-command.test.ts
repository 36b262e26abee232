import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, hexEncode } from '../../src-shared/crypto';
import { signClassical } from '../../src-shared/formats/classical';

// The CLI as a user runs it: a real process, real files, real exit codes.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createPortableProvider();
const seed = new Uint8Array(32).fill(7);
const publicKey = crypto.ed25519PublicKey(seed);

// A data folder of its own, so a trust store on the machine running the tests cannot leak in.
const HOME = mkdtempSync(join(tmpdir(), 'evroom-cli-home-'));

function evroom(args: string[], input?: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, EVROOM_HOME: HOME, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('evroom verify', () => {
  let dir: string;
  let valid: string;
  let tampered: string;
  let trust: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-cli-'));
    const text = signClassical('{"sequence":3,"amount":1.50,"memo":"coffee"}', seed, crypto);
    valid = join(dir, 'valid.json');
    writeFileSync(valid, text);
    tampered = join(dir, 'tampered.json');
    const altered = text.replace('"signed_payload":{"amount":1.50', '"signed_payload":{"amount":1.51');
    expect(altered).not.toBe(text);
    writeFileSync(tampered, altered);
    trust = join(dir, 'trust.json');
    writeFileSync(
      trust,
      JSON.stringify({
        keys: [
          {
            key_id: 'did:svc:test:k1',
            algorithm: 'Ed25519',
            public_key: b64uEncode(publicKey),
            label: 'Test issuer',
            status: 'pinned',
          },
        ],
      }),
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(HOME, { recursive: true, force: true });
  });

  it('reports a valid receipt as PASS with unpinned trust and exits 0', () => {
    const result = evroom(['verify', valid]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('PASS');
    expect(result.stdout).toContain('unpinned');
    expect(result.stdout).toContain('signature');
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('prints one JSON line per input with the input path, and exits 1 when one is not PASS', () => {
    const result = evroom(['verify', '--json', valid, tampered]);
    expect(result.code).toBe(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { input: string; status: string; report_version: string });
    expect(lines.map((line) => [line.input, line.status])).toEqual([
      [valid, 'PASS'],
      [tampered, 'MISMATCH'],
    ]);
    expect(lines[0]!.report_version).toBe('1');
  });

  it('reads standard input for -', () => {
    const result = evroom(['verify', '--json', '-'], signClassical({ sequence: 1 }, seed, crypto));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout) as { input: string; status: string }).toMatchObject({
      input: '-',
      status: 'PASS',
    });
  });

  it('makes trust trusted with a pinned key, and --require-trusted fails without one', () => {
    const pinned = evroom(['verify', '--json', '--trust', trust, valid]);
    expect(pinned.code).toBe(0);
    expect((JSON.parse(pinned.stdout) as { trust: { status: string; label?: string } }).trust).toMatchObject({
      status: 'trusted',
      label: 'Test issuer',
    });
    expect(evroom(['verify', '--require-trusted', '--trust', trust, valid]).code).toBe(0);
    const unpinned = evroom(['verify', '--require-trusted', valid]);
    expect(unpinned.code).toBe(1);
    expect(unpinned.stdout).toContain('not trusted');
  });

  it('gives each bad input its own error line and exits 2', () => {
    const empty = join(dir, 'empty.json');
    writeFileSync(empty, '');
    const binary = join(dir, 'binary.bin');
    writeFileSync(binary, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff]));
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    const missing = join(dir, 'missing.json');
    const result = evroom(['verify', valid, missing, folder, empty, binary]);
    expect(result.code).toBe(2);
    const errors = result.stderr.trim().split('\n');
    expect(errors).toEqual([
      `evroom: ${missing}: no such file`,
      `evroom: ${folder}: is a directory, not a file`,
      `evroom: ${empty}: is empty; expected a JSON document`,
      `evroom: ${binary}: is a binary file, not a JSON document`,
    ]);
    // The good input is still reported.
    expect(result.stdout).toContain('PASS');
  });

  it('reports a malformed document (duplicate name) as MALFORMED with its path, exit 1', () => {
    const duplicate = join(dir, 'duplicate.json');
    writeFileSync(duplicate, '{"signed_payload":{"a":1,"a":2},"signature":"00","public_key_hex":"00"}');
    const result = evroom(['verify', '--json', duplicate]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { status: string; errors: { code: string; path: string }[] };
    expect(report.status).toBe('MALFORMED');
    expect(report.errors[0]).toMatchObject({ code: 'duplicate_name', path: '/signed_payload/a' });
  });

  it('refuses usage errors with exit 2 and a pointer to help', () => {
    const noFiles = evroom(['verify']);
    expect(noFiles.code).toBe(2);
    expect(noFiles.stderr).toContain('name at least one FILE');
    const unknown = evroom(['verify', '--frobnicate', valid]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown option --frobnicate');
    const badTrust = join(dir, 'bad-trust.json');
    writeFileSync(
      badTrust,
      JSON.stringify({ keys: [{ key_id: 'did:svc:x', algorithm: 'Ed25519', public_key: hexEncode(publicKey) }] }),
    );
    const bad = evroom(['verify', '--trust', badTrust, valid]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^evroom: trust store .*bad-trust\.json at \/keys\/0\/public_key: /);
    expect(bad.stdout).toBe('');
  });

  it('over many files verifies on worker threads too, and prints the same lines in input order as --jobs 1', () => {
    // More inputs than the CLI verifies on its own thread alone (256), with every kind of
    // outcome mixed in, so that batches of both kinds carry failures and unreadable files.
    const many = join(dir, 'many');
    mkdirSync(many);
    const inputs: string[] = [];
    for (let index = 0; index < 300; index += 1) {
      const file = join(many, `r${index}.json`);
      const text = signClassical(`{"sequence":${index},"amount":"1.00"}`, seed, crypto);
      if (index % 50 === 7) {
        inputs.push(join(many, `missing-${index}.json`));
        continue;
      }
      writeFileSync(
        file,
        index % 40 === 3 ? text.replace('"amount":"1.00"', '"amount":"1.01"') : index === 100 ? '{"a":1,"a":2}' : text,
      );
      inputs.push(file);
    }
    const serial = evroom(['verify', '--json', '--jobs', '1', '--trust', trust, ...inputs]);
    const parallel = evroom(['verify', '--json', '--jobs', '3', '--trust', trust, ...inputs]);
    expect(serial.code).toBe(2);
    expect(parallel.code).toBe(2);
    expect(parallel.stdout).toBe(serial.stdout);
    expect(parallel.stderr).toBe(serial.stderr);
    const lines = parallel.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { input: string; status?: string; error?: { code: string }; trust?: { status: string } },
      );
    expect(lines.map((line) => line.input)).toEqual(inputs);
    expect(lines.filter((line) => line.error?.code === 'io_error')).toHaveLength(6);
    expect(lines.filter((line) => line.status === 'MISMATCH')).toHaveLength(8);
    expect(lines[100]?.status).toBe('MALFORMED');
    expect(lines[0]).toMatchObject({ status: 'PASS', trust: { status: 'trusted' } });
    // Each line is the report one verification of that file alone prints.
    expect(lines[3]).toEqual(JSON.parse(evroom(['verify', '--json', '--trust', trust, inputs[3]!]).stdout));
    expect(parallel.stderr.trim().split('\n')).toEqual(
      inputs.filter((_, index) => index % 50 === 7).map((input) => `evroom: ${input}: no such file`),
    );
    // Every worker thread ends as the first request reaches it (a crash): the pool replaces them,
    // and the batches they held and the inputs met while none runs are verified on this thread,
    // so the output is still every line, in order, the same as with one thread.
    const crashing = evroom(['verify', '--json', '--jobs', '3', '--trust', trust, ...inputs], undefined, {
      EVROOM_FAILPOINTS: 'verify-worker.request=exit-thread',
    });
    expect(crashing.code).toBe(2);
    expect(crashing.stdout).toBe(serial.stdout);
    expect(crashing.stderr).toBe(serial.stderr);
  });

  it('keeps the input order over many files whatever thread verified them: PASS, INVALID, MISMATCH, MALFORMED, unreadable and standard input mixed', () => {
    // Enough files for many worker batches (they shrink near the end) and chunks on this thread,
    // with a failure of every kind at irregular places so that each thread meets some.
    const mixed = join(dir, 'mixed');
    mkdirSync(mixed);
    const fifo = join(mixed, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    writeFileSync(join(mixed, 'empty.json'), '');
    writeFileSync(join(mixed, 'binary.bin'), Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x00, 0x01));
    const inputs: string[] = [];
    const expected: string[] = [];
    for (let index = 0; index < 1000; index += 1) {
      const file = join(mixed, `r${index}.json`);
      const text = signClassical(`{"sequence":${index},"amount":"1.00"}`, seed, crypto);
      const signature = (JSON.parse(text) as { signature: string }).signature;
      const kind = index === 500 ? 'stdin' : ([7, 13, 17, 19, 23].find((prime) => index % prime === 5) ?? 0);
      if (kind === 'stdin') {
        inputs.push('-');
        expected.push('PASS');
      } else if (kind === 7) {
        writeFileSync(
          file,
          text.replace(
            signature,
            `${signature.slice(0, 20)}${signature[20] === '0' ? '1' : '0'}${signature.slice(21)}`,
          ),
        );
        inputs.push(file);
        expected.push('INVALID');
      } else if (kind === 13) {
        writeFileSync(file, text.replace('"amount":"1.00"', '"amount":"1.01"'));
        inputs.push(file);
        expected.push('MISMATCH');
      } else if (kind === 17) {
        writeFileSync(file, `{"a":${index},"a":2}`);
        inputs.push(file);
        expected.push('MALFORMED');
      } else if (kind === 19) {
        const unreadable = [
          join(mixed, `missing-${index}.json`),
          mixed,
          fifo,
          join(mixed, 'empty.json'),
          join(mixed, 'binary.bin'),
        ][index % 5]!;
        inputs.push(unreadable);
        expected.push('io_error');
      } else {
        writeFileSync(file, text);
        inputs.push(file);
        expected.push('PASS');
      }
    }
    const stdin = signClassical('{"sequence":500,"amount":"1.00"}', seed, crypto);
    const runs = ['1', '2', '4'].map((jobs) =>
      evroom(['verify', '--json', '--jobs', jobs, '--trust', trust, ...inputs], stdin),
    );
    const [serial] = runs;
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe(serial!.stdout);
      expect(run.stderr).toBe(serial!.stderr);
    }
    const lines = serial!.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { input: string; status?: string; error?: { code: string; message: string } });
    expect(lines.map((line) => line.input)).toEqual(inputs);
    expect(lines.map((line) => line.status ?? line.error?.code)).toEqual(expected);
    expect(new Set(expected)).toEqual(new Set(['PASS', 'INVALID', 'MISMATCH', 'MALFORMED', 'io_error']));
    // One line on standard error per unreadable input, in input order, with the reason.
    const errors = lines.filter((line) => line.error !== undefined).map((line) => `evroom: ${line.error!.message}`);
    expect(serial!.stderr.trim().split('\n')).toEqual(errors);
    expect(errors.filter((line) => line.endsWith(': is not a regular file'))).not.toHaveLength(0);
    expect(errors.filter((line) => line.endsWith(': no such file'))).not.toHaveLength(0);
    expect(errors.filter((line) => line.endsWith(': is a directory, not a file'))).not.toHaveLength(0);
    expect(errors.filter((line) => line.endsWith(': is empty; expected a JSON document'))).not.toHaveLength(0);
    expect(errors.filter((line) => line.endsWith(': is a binary file, not a JSON document'))).not.toHaveLength(0);
    // The human form, too, is the same whichever threads verified.
    const human = ['1', '3'].map((jobs) => evroom(['verify', '--jobs', jobs, '--trust', trust, ...inputs], stdin));
    expect(human[1]).toEqual(human[0]);
    expect(human[0]!.stdout).toContain(
      `${inputs.length} inputs: ${expected.filter((status) => status === 'PASS').length} passed, ${expected.filter((status) => status !== 'PASS').length} did not`,
    );
  });

  it('checks --jobs', () => {
    for (const jobs of ['0', '65', 'two', '1.5', '-1', ' 2']) {
      const result = evroom(['verify', '--jobs', jobs, valid]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`verify: --jobs must be a whole number from 1 to 64, got "${jobs}"`);
      expect(result.stdout).toBe('');
    }
    const empty = evroom(['verify', '--jobs', '', valid]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toBe('evroom: verify: --jobs needs a non-empty value');
    expect(empty.stdout).toBe('');
  });

  it('refuses a FIFO as not a regular file without waiting for a writer', () => {
    const fifo = join(dir, 'fifo');
    const made = spawnSync('mkfifo', [fifo]);
    expect(made.status).toBe(0);
    const result = evroom(['verify', fifo]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`evroom: ${fifo}: is not a regular file`);
  });

  it('prints help for --help and for an unknown command says what exists', () => {
    const help = evroom(['verify', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--require-trusted');
    expect(help.stdout).toContain('Exit codes');
    const unknown = evroom(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
  });

  it('stops quietly when the reader of its output goes away (`| head`), with no stack trace', () => {
    // Enough output to fill the pipe after the reader has gone.
    const files = Array.from({ length: 400 }, () => JSON.stringify(valid)).join(' ');
    const result = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" verify ${files} | head -c 100 > /dev/null`], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', EVROOM_HOME: HOME },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
