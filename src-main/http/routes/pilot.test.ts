import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { didKeyFromEd25519, hexEncode, utf8Encode } from '../../../src-shared/crypto';
import {
  issueProfileReceipt,
  NANO_BYTE_BUDGET,
  profileByteLength,
  STANDARD_BYTE_BUDGET,
} from '../../../src-shared/formats/profile';
import { jcs } from '../../../src-shared/json';
import type { RosettaAnswerObligation } from '../../operations/rosetta';
import { createTenant, issueApiKey } from '../../operations/service-admin';
import { workspaceServiceStore } from '../../operations/service-store';
import { loadServiceKeys } from '../../operations/service-keys';
import { openWorkspace, type Workspace } from '../../operations/workspace';
import { buildService, type Service } from '../service';

// The pilot routes over real HTTP on 127.0.0.1, on a real workspace (SQLite ledger, service key)
// in a temporary data folder, with real API keys: one with the partner scope, one without.

let home: string;
let workspace: Workspace;
let service: Service;
let base: string;
let partnerKey: string;
let plainKey: string;

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-pilot-'));
  workspace = openWorkspace(home);
  const { active, listed } = loadServiceKeys(workspace);
  service = await buildService({
    workspace,
    signer: { key_id: active.key_id, seed: active.seed, public_key: active.public_key, listed },
  });
  base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  await createTenant(workspaceServiceStore(workspace), 'partner-co', 'pro');
  await createTenant(workspaceServiceStore(workspace), 'plain-co', 'pro');
  partnerKey = (await issueApiKey(workspaceServiceStore(workspace), 'partner-co', ['partner'])).key;
  plainKey = (await issueApiKey(workspaceServiceStore(workspace), 'plain-co')).key;
});

afterAll(async () => {
  await service?.close();
  workspace?.close();
  fs.rmSync(home, { recursive: true, force: true });
});

async function post(
  route: string,
  body: unknown,
  key: string | null = partnerKey,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Check {
  id: string;
  status: string;
  required: boolean;
  detail: string;
}

function checkOf(answer: Record<string, unknown>, id: string): Check {
  const found = (answer['checks'] as Check[]).find((item) => item.id === id);
  if (found === undefined) throw new Error(`no check ${id}`);
  return found;
}

const READY_SURFACE = {
  name: 'checkout',
  sample_payload: '{"order_id":"A-1","amount":12.5,"items":[{"sku":"x","qty":2}]}',
  signer: 'Ed25519',
  clock_source: 'NTP (pool.ntp.org)',
  ids_stable: true,
};

describe('POST /v1/rosetta/normalize', () => {
  it('maps obligations by id across the four regimes, in request order, with the receipt fields that evidence them', async () => {
    const { status, body } = await post('/v1/rosetta/normalize', {
      from_regime: 'eu_ai_act',
      obligations: ['record_keeping', 'serious_incident_reporting'],
    });
    expect(status).toBe(200);
    expect(body['pilot']).toBe(true);
    expect(body['from_regime']).toBe('eu_ai_act');
    expect(String(body['disclaimer'])).toMatch(/^Not legal advice\. /);
    expect(body['unmatched_terms']).toBeUndefined();
    const [logs, incidents] = body['obligations'] as RosettaAnswerObligation[];
    expect(logs?.id).toBe('record_keeping');
    expect(logs?.from).toEqual({ name: 'Record-keeping', citation: 'Art. 12' });
    expect(Object.keys(logs?.regimes ?? {})).toEqual(['eu_ai_act', 'nist_ai_rmf', 'iso_iec_42001', 'uk_ai_principles']);
    expect(logs?.regimes.iso_iec_42001).toEqual({
      name: 'AI system recording of event logs',
      citation: 'Annex A, control A.6.2.8',
    });
    expect(logs?.receipt_fields.map((field) => field.pointer)).toContain('/issued_at');
    expect(incidents?.id).toBe('serious_incident_reporting');
    expect(incidents?.regimes.eu_ai_act).toEqual({ name: 'Reporting of serious incidents', citation: 'Art. 73' });
    expect(incidents?.regimes.uk_ai_principles).toBe('no_equivalent');
    expect((body['sources'] as Record<string, { document: string }>)['eu_ai_act']?.document).toContain(
      'Regulation (EU) 2024/1689',
    );
  });

  it('answers from the regime asked: from is that regime’s cell, no_equivalent included', async () => {
    const { status, body } = await post('/v1/rosetta/normalize', {
      from_regime: 'uk_ai_principles',
      obligations: ['log_retention'],
    });
    expect(status).toBe(200);
    expect((body['obligations'] as Record<string, unknown>[])[0]?.['from']).toBe('no_equivalent');
  });

  it('matches free-text terms by synonyms, case-insensitively on whole words, and reports the unmatched ones', async () => {
    const { status, body } = await post('/v1/rosetta/normalize', {
      from_regime: 'nist_ai_rmf',
      terms: ['Automatic EVENT LOGS', 'incident reporting', 'product catalogs', 'blockchain', 'HUMAN   oversight'],
    });
    expect(status).toBe(200);
    const obligations = body['obligations'] as { id: string; matched_terms: string[] }[];
    // Table order, whatever the order of the terms.
    expect(obligations.map((item) => item.id)).toEqual([
      'record_keeping',
      'human_oversight',
      'serious_incident_reporting',
    ]);
    expect(obligations[0]?.matched_terms).toEqual(['Automatic EVENT LOGS']);
    expect(obligations[1]?.matched_terms).toEqual(['HUMAN   oversight']);
    expect(body['unmatched_terms']).toEqual(['product catalogs', 'blockchain']);
  });

  it('answers the same on the /v1/rosetta/translate alias, and the same twice', async () => {
    const request = { from_regime: 'iso_iec_42001', obligations: ['human_oversight', 'data_governance'] };
    const first = await post('/v1/rosetta/normalize', request);
    const second = await post('/v1/rosetta/normalize', request);
    const alias = await post('/v1/rosetta/translate', request);
    expect(first.status).toBe(200);
    expect(alias.status).toBe(200);
    expect(jcs(second.body as never)).toBe(jcs(first.body as never));
    expect(jcs(alias.body as never)).toBe(jcs(first.body as never));
  });

  it('refuses an unknown regime with 400 invalid_request at /from_regime', async () => {
    const { status, body } = await post('/v1/rosetta/normalize', {
      from_regime: 'gdpr',
      obligations: ['record_keeping'],
    });
    expect(status).toBe(400);
    const error = body['error'] as { code: string; details: { path: string }[] };
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((detail) => detail.path)).toEqual(['/from_regime']);
  });

  it('refuses an unknown obligation with 400 invalid_request at its pointer', async () => {
    const { status, body } = await post('/v1/rosetta/translate', {
      from_regime: 'eu_ai_act',
      obligations: ['record_keeping', 'human_oversight', 'art_99'],
    });
    expect(status).toBe(400);
    const error = body['error'] as { code: string; details: { path: string }[] };
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((detail) => detail.path)).toEqual(['/obligations/2']);
  });

  it('refuses both lists, neither list, a repeated obligation and an unknown member', async () => {
    const both = await post('/v1/rosetta/normalize', {
      from_regime: 'eu_ai_act',
      obligations: ['record_keeping'],
      terms: ['logs'],
    });
    const neither = await post('/v1/rosetta/normalize', { from_regime: 'eu_ai_act' });
    const repeated = await post('/v1/rosetta/normalize', {
      from_regime: 'eu_ai_act',
      obligations: ['record_keeping', 'record_keeping'],
    });
    const extra = await post('/v1/rosetta/normalize', {
      from_regime: 'eu_ai_act',
      obligations: ['record_keeping'],
      jurisdiction: 'x',
    });
    for (const answer of [both, neither, repeated, extra]) expect(answer.status).toBe(400);
    expect((extra.body['error'] as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(
      '/jurisdiction',
    );
  });

  it('refuses a body with a duplicate member name (strict parse) with its pointer', async () => {
    const { status, body } = await post(
      '/v1/rosetta/normalize',
      '{"from_regime":"eu_ai_act","from_regime":"nist_ai_rmf","obligations":["record_keeping"]}',
    );
    expect(status).toBe(400);
    expect((body['error'] as { details: { path: string; message: string }[] }).details).toEqual([
      { path: '/from_regime', message: 'duplicate_name' },
    ]);
  });
});

describe('POST /v1/prospector/qualify', () => {
  it('finds a surface with a strict payload, an executed signer, a clock and stable ids ready, on the standard profile', async () => {
    const { status, body } = await post('/v1/prospector/qualify', { surface: READY_SURFACE });
    expect(status).toBe(200);
    expect(body['pilot']).toBe(true);
    expect(body['surface']).toBe('checkout');
    expect(body['ready']).toBe(true);
    expect(body['recommended_profile']).toBe('standard');
    expect((body['checks'] as Check[]).map((item) => [item.id, item.status])).toEqual([
      ['payload_strict_json', 'pass'],
      ['payload_jcs', 'pass'],
      ['receipt_budget', 'pass'],
      ['signer', 'pass'],
      ['clock_source', 'pass'],
      ['ids_stable', 'pass'],
    ]);
    const canonical = jcs(JSON.parse(READY_SURFACE.sample_payload) as never);
    expect(canonical).toBe('{"amount":12.5,"items":[{"qty":2,"sku":"x"}],"order_id":"A-1"}');
    expect(body['payload_jcs_sha256']).toBe(hexEncode(workspace.crypto.sha256(utf8Encode(canonical))));
    expect(String(body['disclaimer']).length).toBeGreaterThan(0);
  });

  it('fails the parse check for a payload with a duplicate member name, and is not ready', async () => {
    const { status, body } = await post('/v1/prospector/qualify', {
      surface: { ...READY_SURFACE, sample_payload: '{"order":{"id":1,"id":2}}' },
    });
    expect(status).toBe(200);
    expect(body['ready']).toBe(false);
    const parsed = checkOf(body, 'payload_strict_json');
    expect(parsed.status).toBe('fail');
    expect(parsed.detail).toContain('duplicate_name');
    expect(parsed.detail).toContain('/order/id');
    expect(checkOf(body, 'payload_jcs').status).toBe('unchecked');
    expect(checkOf(body, 'receipt_budget').status).toBe('unchecked');
    expect(body['wrapped_bytes']).toBeUndefined();
  });

  it('fails the parse check for an integer beyond ±(2^53−1) and for a lone surrogate', async () => {
    const big = await post('/v1/prospector/qualify', {
      surface: { ...READY_SURFACE, sample_payload: '{"ids":[1,-9007199254740992]}' },
    });
    expect(checkOf(big.body, 'payload_strict_json')).toMatchObject({ status: 'fail' });
    expect(checkOf(big.body, 'payload_strict_json').detail).toMatch(/integer_out_of_range.*\/ids\/1/);
    const edge = await post('/v1/prospector/qualify', {
      surface: { ...READY_SURFACE, sample_payload: '{"n":-9007199254740991,"x":1e300}' },
    });
    expect(checkOf(edge.body, 'payload_strict_json').status).toBe('pass');
    const surrogate = await post('/v1/prospector/qualify', {
      surface: { ...READY_SURFACE, sample_payload: '{"name":"\\ud800"}' },
    });
    expect(checkOf(surrogate.body, 'payload_strict_json').detail).toContain('lone_surrogate');
    expect(surrogate.body['ready']).toBe(false);
  });

  it('measures real receipts around the payload’s hash against the nano and standard budgets, whatever the payload’s size', async () => {
    const small = await post('/v1/prospector/qualify', { surface: READY_SURFACE });
    const large = await post('/v1/prospector/qualify', {
      surface: { ...READY_SURFACE, sample_payload: JSON.stringify({ blob: 'x'.repeat(200_000) }) },
    });
    const sizes = small.body['wrapped_bytes'] as { nano: number; standard: number; pq: number };
    expect(large.body['wrapped_bytes']).toEqual(sizes);
    expect(sizes.nano).toBeLessThanOrEqual(NANO_BYTE_BUDGET);
    expect(sizes.standard).toBeLessThanOrEqual(STANDARD_BYTE_BUDGET);
    expect(sizes.standard).toBeGreaterThan(sizes.nano);
    // The same receipt made here with another key, id and instant has the same size.
    const seed = workspace.crypto.randomBytes(32);
    const nano = issueProfileReceipt(
      'nano',
      {
        ok: true,
        a: 'did:web:agent.example.com',
        h: `sha256:${String(small.body['payload_jcs_sha256'])}`,
        t: 'application/json',
      },
      seed,
      didKeyFromEd25519(workspace.crypto.ed25519PublicKey(seed)),
      workspace.crypto,
      { now: new Date('2031-01-02T03:04:05.678Z') },
    );
    expect(sizes.nano).toBe(profileByteLength(nano));
    const budget = checkOf(small.body, 'receipt_budget');
    expect(budget.detail).toContain(`nano ${sizes.nano} B of 600 B (fits`);
    expect(budget.detail).toContain(`standard ${sizes.standard} B of 3072 B (fits`);
  });

  it('recommends pq for retention over 365 days (no byte budget) and standard up to 365', async () => {
    const long = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, retention_days: 366 } });
    expect(long.body['recommended_profile']).toBe('pq');
    expect(checkOf(long.body, 'receipt_budget')).toMatchObject({ status: 'pass' });
    expect(checkOf(long.body, 'receipt_budget').detail).toContain('the recommended profile pq has no byte budget');
    const year = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, retention_days: 365 } });
    expect(year.body['recommended_profile']).toBe('standard');
  });

  it('passes Ed25519 and ML-DSA-65, fails other signers, and leaves what was not stated unchecked', async () => {
    expect(
      checkOf(
        (await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, signer: 'ml-dsa-65' } })).body,
        'signer',
      ).status,
    ).toBe('pass');
    const rsa = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, signer: 'RSA-PSS' } });
    expect(checkOf(rsa.body, 'signer').status).toBe('fail');
    expect(rsa.body['ready']).toBe(false);
    const unstable = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, ids_stable: false } });
    expect(checkOf(unstable.body, 'ids_stable').status).toBe('fail');
    expect(unstable.body['ready']).toBe(false);

    const bare = await post('/v1/prospector/qualify', { surface: { name: 'bare' } });
    expect(bare.status).toBe(200);
    expect(bare.body['ready']).toBe(false);
    expect((bare.body['checks'] as Check[]).every((item) => item.status === 'unchecked')).toBe(true);
  });

  it('is ready without a clock source (not required) but not without a payload or ids_stable (required)', async () => {
    const { clock_source: _clock, ...noClock } = READY_SURFACE;
    const clockless = await post('/v1/prospector/qualify', { surface: noClock });
    expect(checkOf(clockless.body, 'clock_source')).toMatchObject({ status: 'unchecked', required: false });
    expect(clockless.body['ready']).toBe(true);
    const { ids_stable: _ids, ...noIds } = READY_SURFACE;
    expect((await post('/v1/prospector/qualify', { surface: noIds })).body['ready']).toBe(false);
    const { sample_payload: _payload, ...noPayload } = READY_SURFACE;
    const payloadless = await post('/v1/prospector/qualify', { surface: noPayload });
    expect(checkOf(payloadless.body, 'payload_strict_json')).toMatchObject({ status: 'unchecked', required: true });
    expect(payloadless.body['ready']).toBe(false);
  });

  it('answers the same surface the same way twice', async () => {
    const first = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, retention_days: 30 } });
    const second = await post('/v1/prospector/qualify', { surface: { ...READY_SURFACE, retention_days: 30 } });
    expect(first.status).toBe(200);
    expect(jcs(second.body as never)).toBe(jcs(first.body as never));
  });

  it('refuses an unknown member, a sample payload that is not a string and a negative retention, with pointers', async () => {
    const extra = await post('/v1/prospector/qualify', { surface: { name: 'x', owner: 'y' } });
    expect(extra.status).toBe(400);
    expect((extra.body['error'] as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(
      '/surface/owner',
    );
    const object = await post('/v1/prospector/qualify', { surface: { name: 'x', sample_payload: { a: 1 } } });
    expect((object.body['error'] as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(
      '/surface/sample_payload',
    );
    const negative = await post('/v1/prospector/qualify', { surface: { name: 'x', retention_days: -1 } });
    expect((negative.body['error'] as { details: { path: string }[] }).details.map((detail) => detail.path)).toContain(
      '/surface/retention_days',
    );
  });
});

describe('the partner gate', () => {
  const routes: [string, unknown][] = [
    ['/v1/rosetta/normalize', { from_regime: 'eu_ai_act', obligations: ['record_keeping'] }],
    ['/v1/rosetta/translate', { from_regime: 'eu_ai_act', obligations: ['record_keeping'] }],
    ['/v1/prospector/qualify', { surface: READY_SURFACE }],
  ];

  it.each(routes)('%s answers 401 without a key or with an unknown one', async (route, body) => {
    const none = await post(route, body, null);
    expect(none.status).toBe(401);
    expect((none.body['error'] as { code: string }).code).toBe('unauthorized');
    const unknown = await post(route, body, 'svc_pro_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.status).toBe(401);
  });

  it.each(routes)('%s answers 403 partner_only to a valid key without the partner scope', async (route, body) => {
    const { status, body: answer } = await post(route, body, plainKey);
    expect(status).toBe(403);
    expect(answer).toEqual({
      error: { code: 'partner_only', message: expect.stringContaining('partner') as unknown, details: [] },
    });
  });

  it('checks the key before the body: a bad body from a non-partner is still 403', async () => {
    const { status } = await post('/v1/rosetta/normalize', { from_regime: 'gdpr' }, plainKey);
    expect(status).toBe(403);
  });
});
