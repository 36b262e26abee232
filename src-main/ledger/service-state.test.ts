import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { explainQueryPlan } from './database';
import { makeTemporaryLedger } from './test-support';
import {
  consumeQuota,
  findApiKey,
  insertApiKey,
  insertTenant,
  listApiKeys,
  listTenants,
  quotaUsed,
  recordWearableNonce,
  revokeApiKey,
} from './service-state';
import type { Ledger } from './open-ledger';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

describe('service state', () => {
  let ledger: Ledger;
  let dispose: () => void;

  beforeEach(() => {
    ({ ledger, dispose } = makeTemporaryLedger());
  });
  afterEach(() => dispose());

  it('keeps tenants and their keys by hash, and refuses a key of an unknown tenant or a second tenant of one id', () => {
    insertTenant(ledger.writable, { id: 'acme', tier: 'pro', at: 1 });
    expect(() => insertTenant(ledger.writable, { id: 'acme', tier: 'free', at: 2 })).toThrow(
      expect.objectContaining({ code: 'constraint' }),
    );
    expect(() => insertTenant(ledger.writable, { id: 'has space', tier: 'free', at: 2 })).toThrow(RangeError);
    expect(() => insertTenant(ledger.writable, { id: 'a\u0000b', tier: 'free', at: 2 })).toThrow(RangeError);
    expect(listTenants(ledger.readable)).toEqual([{ id: 'acme', tier: 'pro', created_at: 1 }]);
    insertApiKey(ledger.writable, {
      key_sha256: HASH_A,
      prefix: 'svc_pro_abcdefgh',
      tenant_id: 'acme',
      tier: 'pro',
      scopes: ['partner'],
      at: 5,
    });
    expect(() =>
      insertApiKey(ledger.writable, {
        key_sha256: HASH_B,
        prefix: 'svc_pro_other123',
        tenant_id: 'nobody',
        tier: 'pro',
        scopes: [],
        at: 5,
      }),
    ).toThrow(expect.objectContaining({ code: 'constraint' }));
    expect(findApiKey(ledger.readable, HASH_A)).toEqual({
      prefix: 'svc_pro_abcdefgh',
      tenant_id: 'acme',
      tier: 'pro',
      scopes: ['partner'],
      created_at: 5,
      revoked_at: null,
    });
    expect(findApiKey(ledger.readable, HASH_B)).toBeUndefined();
    expect(revokeApiKey(ledger.writable, 'svc_pro_abcdefgh', 9).revoked_at).toBe(9);
    // Revoking twice keeps the first instant.
    expect(revokeApiKey(ledger.writable, 'svc_pro_abcdefgh', 12).revoked_at).toBe(9);
    expect(() => revokeApiKey(ledger.writable, 'svc_pro_missing0', 9)).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(listApiKeys(ledger.readable, 'acme')).toHaveLength(1);
    expect(JSON.stringify(listApiKeys(ledger.readable))).not.toContain(HASH_A);
  });

  it('counts a quota up to its limit exactly, and not one past it', () => {
    for (let use = 1; use <= 100; use += 1)
      expect(consumeQuota(ledger.writable, 'ip:127.0.0.1', '2026-11-23', 100)).toEqual({ allowed: true, used: use });
    expect(consumeQuota(ledger.writable, 'ip:127.0.0.1', '2026-11-23', 100)).toEqual({ allowed: false, used: 100 });
    expect(quotaUsed(ledger.readable, 'ip:127.0.0.1', '2026-11-23')).toBe(100);
    // Another day, another subject: their own counts.
    expect(consumeQuota(ledger.writable, 'ip:127.0.0.1', '2026-11-24', 100)).toEqual({ allowed: true, used: 1 });
    expect(consumeQuota(ledger.writable, 'ip:10.0.0.1', '2026-11-23', 100)).toEqual({ allowed: true, used: 1 });
    expect(consumeQuota(ledger.writable, 'tenant:none', '2026-11', 0)).toEqual({ allowed: false, used: 0 });
  });

  it('records an observation nonce once per device commitment', () => {
    const use = {
      device_id_commitment_sha256: HASH_A,
      observation_nonce: 'nonce-0123456789ab',
      receipt_sha256: HASH_B,
      at: 1,
    };
    expect(recordWearableNonce(ledger.writable, use)).toBe(true);
    expect(recordWearableNonce(ledger.writable, { ...use, receipt_sha256: 'c'.repeat(64) })).toBe(false);
    expect(recordWearableNonce(ledger.writable, { ...use, device_id_commitment_sha256: HASH_B })).toBe(true);
  });

  it('finds a key by its hash through the unique index', () => {
    const plan = explainQueryPlan(ledger.readable, ['SELECT prefix FROM api_keys WHERE key_sha256 = ?', [HASH_A]]).join(
      ' ',
    );
    expect(plan).toMatch(/USING INDEX sqlite_autoindex_api_keys_1|USING COVERING INDEX sqlite_autoindex_api_keys_1/);
  });
});
