import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, createPortableProvider, utf8Encode } from '../../src-shared/crypto';
import {
  WEARABLE_EXAMPLE_KEY_ID,
  WEARABLE_EXAMPLE_TS,
  WEARABLE_SCOPE_NOTE,
  issueWearable,
  signObservation,
  wearableExampleDeviceSeed,
  wearableExampleObservation,
  wearableExampleServiceSeed,
  type WearableReceipt,
} from '../../src-shared/formats/wearable';
import type { JsonObject } from '../../src-shared/verify/fields';
import { ruleD1Payload, signRuleD1 } from '../../src-shared/verify/signature';

// Wearable receipts through `evroom verify --json` as a user runs it: real files, a real process.
const BIN = fileURLToPath(new URL('../../bin/evroom.mjs', import.meta.url));
const crypto = createPortableProvider();
const serviceSeed = wearableExampleServiceSeed();

interface Line {
  input: string;
  format: string;
  status: string;
  trust: { status: string; key_id?: string; label?: string };
  checks: { id: string; status: string; detail?: string }[];
  errors: { code: string; path: string }[];
  notes: string[];
}

function evroom(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function lines(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

function issued(overrides: Record<string, unknown> = {}, afterSigning: Record<string, unknown> = {}): WearableReceipt {
  const fields = wearableExampleObservation(crypto) as unknown as Record<string, unknown>;
  Object.assign(fields, overrides);
  const typed = fields as unknown as Parameters<typeof signObservation>[0] & { device_signature: string };
  typed.device_signature = signObservation(typed, wearableExampleDeviceSeed(), crypto);
  Object.assign(fields, afterSigning);
  return issueWearable(fields as unknown as JsonObject, serviceSeed, WEARABLE_EXAMPLE_KEY_ID, crypto, {
    ts: WEARABLE_EXAMPLE_TS,
  });
}

function edited(
  receipt: WearableReceipt,
  change: (document: { [name: string]: unknown; signed_body: Record<string, unknown> }) => void,
) {
  const document = JSON.parse(JSON.stringify(receipt)) as {
    [name: string]: unknown;
    signed_body: Record<string, unknown>;
  };
  change(document);
  return document;
}

function failing(line: Line): string[] {
  return line.checks.filter((check) => check.status !== 'pass').map((check) => `${check.id}:${check.status}`);
}

describe('evroom verify on wearable receipts', () => {
  let dir: string;
  const files: Record<string, string> = {};
  let keys: string;
  let trust: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evroom-wearable-'));
    const complete = issued();
    const documents: Record<string, unknown> = {
      complete,
      partial: issued({ sequence_no: 45 }),
      'inconsistent-unit': issued({ unit: 'bpm' }),
      'inconsistent-order': issued({ sequence_no: 40 }),
      'inconsistent-signature': issued({}, { value: 150 }),
      'derived-mismatch': signRuleD1(
        edited(complete, (document) => (document.signed_body['sequence_relation'] = 'gap')) as unknown as JsonObject,
        serviceSeed,
        crypto,
      ),
      tampered: edited(complete, (document) => (document.signed_body['value'] = 150)),
      forged: edited(complete, (document) => {
        const digest = crypto.sha256(utf8Encode(ruleD1Payload(document as unknown as JsonObject)));
        document['sig_b64u'] = b64uEncode(crypto.ed25519Sign(digest, new Uint8Array(32).fill(0x99)));
      }),
      'unknown-member': edited(complete, (document) => (document.signed_body['note'] = 'added')),
      'verdict-true': edited(
        complete,
        (document) => ((document.signed_body['verdict'] as Record<string, unknown>)['clinical_validity_proven'] = true),
      ),
    };
    for (const [name, document] of Object.entries(documents)) {
      files[name] = join(dir, `${name}.json`);
      writeFileSync(files[name], JSON.stringify(document, null, 2));
    }
    const key = {
      key_id: WEARABLE_EXAMPLE_KEY_ID,
      algorithm: 'Ed25519',
      public_key: b64uEncode(crypto.ed25519PublicKey(serviceSeed)),
    };
    keys = join(dir, 'keys.json');
    writeFileSync(keys, JSON.stringify({ keys: [key] }));
    trust = join(dir, 'trust.json');
    writeFileSync(trust, JSON.stringify({ keys: [{ ...key, label: 'Wearable service', status: 'pinned' }] }));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports every receipt on its own line: status, format, checks and paths', () => {
    const names = Object.keys(files);
    const result = evroom(['verify', '--json', '--keys', keys, ...names.map((name) => files[name] ?? '')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const reported = lines(result.stdout);
    expect(reported).toHaveLength(names.length);
    const byName: Record<string, Line> = {};
    for (const [index, line] of reported.entries()) byName[names[index] ?? ''] = line;
    for (const name of names) {
      const line = byName[name];
      expect(line?.input).toBe(files[name]);
      expect(line?.format, name).toBe('wearable/r2.0.0');
      expect(line?.notes, name).toContain(WEARABLE_SCOPE_NOTE);
    }
    const summary = Object.fromEntries(
      Object.entries(byName).map(([name, line]) => [name, [line.status, failing(line)]]),
    );
    expect(summary).toEqual({
      complete: ['PASS', []],
      partial: ['PASS', []],
      'inconsistent-unit': ['PASS', []],
      'inconsistent-order': ['PASS', []],
      'inconsistent-signature': ['INVALID', ['device_signature:fail']],
      'derived-mismatch': ['MISMATCH', ['derived.sequence_relation:fail']],
      tampered: [
        'MISMATCH',
        [
          'payload_sha256:fail',
          'signature:fail',
          'device_signature:fail',
          'receipt_id:fail',
          'derived.observation_sha256:fail',
          'derived.signature_relation:fail',
          'derived.elements:fail',
          'derived.outcome:fail',
        ],
      ],
      forged: ['INVALID', ['signature:fail']],
      'unknown-member': ['MALFORMED', expect.arrayContaining(['schema:fail', 'signature:unchecked'])],
      'verdict-true': ['MALFORMED', expect.arrayContaining(['schema:fail', 'derived.outcome:unchecked'])],
    });
    expect(byName['complete']?.notes).toContain('The receipt records the outcome measurement_provenance_complete.');
    expect(byName['partial']?.notes).toContain(
      'The receipt records the outcome measurement_provenance_partial (unresolved: sequence_gap).',
    );
    expect(byName['inconsistent-unit']?.notes).toContain(
      'The receipt records the outcome measurement_provenance_inconsistent.',
    );
    expect(byName['inconsistent-order']?.notes).toContain(
      'The receipt records the outcome measurement_provenance_inconsistent (unresolved: sequence_gap).',
    );
    expect(byName['derived-mismatch']?.errors).toEqual([
      expect.objectContaining({ code: 'derived_mismatch', path: '/signed_body/sequence_relation' }),
    ]);
    expect(
      byName['derived-mismatch']?.checks.find((check) => check.id === 'derived.sequence_relation')?.detail,
    ).toContain('expected "contiguous", found "gap"');
    expect(byName['unknown-member']?.errors).toEqual([
      expect.objectContaining({ code: 'unknown_property', path: '/signed_body/note' }),
    ]);
    expect(byName['verdict-true']?.errors).toEqual([
      expect.objectContaining({ code: 'not_allowed_value', path: '/signed_body/verdict/clinical_validity_proven' }),
    ]);
    expect(byName['complete']?.trust).toMatchObject({ status: 'unpinned', key_id: WEARABLE_EXAMPLE_KEY_ID });
  });

  it('a pinned service key makes trust trusted and --require-trusted exit 0', () => {
    const result = evroom([
      'verify',
      '--json',
      '--require-trusted',
      '--trust',
      trust,
      files['complete'] ?? '',
      files['partial'] ?? '',
    ]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((line) => [line.status, line.trust.status, line.trust.label])).toEqual([
      ['PASS', 'trusted', 'Wearable service'],
      ['PASS', 'trusted', 'Wearable service'],
    ]);
  });

  it('without any key the service signature is unavailable: INDETERMINATE, exit 1', () => {
    const result = evroom(['verify', '--json', files['complete'] ?? '']);
    expect(result.code).toBe(1);
    const [line] = lines(result.stdout);
    expect(line?.status).toBe('INDETERMINATE');
    expect(failing(line as Line)).toEqual(['signature:unavailable']);
  });

  it('the human output names the wearable checks and the provenance note', () => {
    const result = evroom(['verify', '--keys', keys, files['inconsistent-signature'] ?? '']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('INVALID');
    expect(result.stdout).toContain('device_signature');
    expect(result.stdout).toContain('derived.outcome');
    expect(result.stdout).toContain('signed measurement provenance only');
  });
});
