import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TERM_MS } from '../../src-shared/api/payments';
import { didKeyFromEd25519 } from '../../src-shared/crypto/did-key';
import { utf8Encode } from '../../src-shared/crypto/encoding';
import { encodeMemo, transferCalldata, type PaymentMemo } from '../../src-shared/payments/memo';
import { DEVELOPMENT_ACCOUNT_KEYS, embeddedStablecoin, sendCall, type StablecoinChain } from '../anchor/stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { listApiKeys, listAuditEntries, listTenants } from '../ledger';
import { listPayments, observePayment, paymentKey, paymentStatus, paymentTenantId, sealedEnvelope } from './payments';
import { authenticateKey, createTenant, issueApiKey } from './service-admin';
import { workspaceServiceStore } from './service-store';
import { openWorkspace, type Workspace } from './workspace';

// Payments on a real anvil with the real token contract, judged and issued into a real ledger.

const PRO_MONTH = 99_000_000n;
const DAY = 24 * 60 * 60 * 1000;

let testChain: TestChainWithToken;
let chain: StablecoinChain;
let directory: string;
let homeCount = 0;

function freshWorkspace(): Workspace {
  homeCount += 1;
  return openWorkspace(path.join(directory, `home-${homeCount}`));
}

async function pay(
  memo: PaymentMemo | Uint8Array,
  amount: bigint,
  options: { account?: number; token?: string; treasury?: string; gas?: bigint } = {},
): Promise<string> {
  const bytes = memo instanceof Uint8Array ? memo : encodeMemo(memo);
  return sendCall(
    testChain.rpcUrl,
    DEVELOPMENT_ACCOUNT_KEYS[options.account ?? 1] as `0x${string}`,
    options.token ?? chain.config.token,
    transferCalldata(options.treasury ?? chain.config.treasury, amount, bytes),
    options.gas === undefined ? {} : { gas: options.gas },
  );
}

/** What the service makes of a presented key at an instant: the tenant, `expired`, or `unknown`. */
async function judgeKey(workspace: Workspace, key: string, now: Date): Promise<string> {
  const result = await authenticateKey(workspaceServiceStore(workspace), key, now);
  if ('caller' in result) return result.caller.tenant.id;
  return 'expired_at' in result ? `expired ${new Date(result.expired_at).toISOString()}` : 'unknown';
}

beforeAll(async () => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'evroom-payments-'));
  testChain = await startTestChainWithToken();
  chain = testChain.chain;
}, 120_000);

afterAll(async () => {
  await testChain?.stop();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('observePayment on a real chain', () => {
  it('issues one key for a paid month, which authenticates; the same transaction again changes nothing', async () => {
    const workspace = freshWorkspace();
    try {
      const at = new Date('2026-11-26T00:00:00Z');
      const tx = await pay({ tier: 'pro', contact: 'Buyer@Example.com' }, PRO_MONTH);
      const view = await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, {
        confirmations: 1,
        now: at,
      });
      expect(view).toMatchObject({
        tx_hash: tx,
        network: 'anvil-local',
        state: 'issued',
        tier: 'pro',
        term: 'month',
        contact: 'buyer@example.com',
        amount: '99000000',
        token: chain.config.token,
        expires_at: at.getTime() + TERM_MS.month,
        delivery: { channel: 'outbox', state: 'pending', to: 'buyer@example.com', attempts: 0 },
      });
      expect(view.tenant_id).toBe(paymentTenantId('pro', 'buyer@example.com'));
      expect(view.key_prefix).toMatch(/^svc_pro_[A-Za-z0-9_-]{8}$/);
      const { key, prefix } = paymentKey(workspace, 'anvil-local', tx, 'pro');
      expect(prefix).toBe(view.key_prefix);
      expect(JSON.stringify(view)).not.toContain(key);
      expect(await judgeKey(workspace, key, new Date(at.getTime() + DAY))).toBe(view.tenant_id);

      const audit = listAuditEntries(workspace.ledger.readable, { limit: 1000 }).length;
      const again = await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, {
        confirmations: 1,
        now: new Date(at.getTime() + 5),
      });
      expect(again).toEqual(view);
      expect(listApiKeys(workspace.ledger.readable)).toHaveLength(1);
      expect(listAuditEntries(workspace.ledger.readable, { limit: 1000 })).toHaveLength(audit);
      expect(await listPayments(workspaceServiceStore(workspace))).toEqual([view]);
      expect(await paymentStatus(workspaceServiceStore(workspace), tx.toUpperCase().replace('0X', '0x'))).toEqual(view);
    } finally {
      workspace.close();
    }
  });

  it('extends the term for a second payment of the same contact and tier, and a key past its term is expired', async () => {
    const workspace = freshWorkspace();
    try {
      const start = new Date('2026-11-26T00:00:00Z');
      const first = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'pro', contact: 'renew@example.com' }, PRO_MONTH),
        { confirmations: 1, now: start },
      );
      const later = new Date(start.getTime() + 10 * DAY);
      const second = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'pro', contact: 'RENEW@example.com' }, PRO_MONTH * 10n),
        { confirmations: 1, now: later },
      );
      expect(second).toMatchObject({ state: 'issued', term: 'year', tenant_id: first.tenant_id });
      const end = start.getTime() + TERM_MS.month + TERM_MS.year;
      expect(second.expires_at).toBe(end);
      // Both bought keys carry the tenant's end; another tier is another tenant.
      expect(listApiKeys(workspace.ledger.readable).map((record) => record.expires_at)).toEqual([end, end]);
      const scale = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'scale', contact: 'renew@example.com' }, 499_000_000n),
        { confirmations: 1, now: later },
      );
      expect(scale.tenant_id).not.toBe(first.tenant_id);
      expect(listTenants(workspace.ledger.readable).map((tenant) => tenant.id)).toHaveLength(2);

      const { key } = paymentKey(workspace, 'anvil-local', first.tx_hash, 'pro');
      expect(await judgeKey(workspace, key, new Date(end - 1))).toBe(first.tenant_id);
      expect(await judgeKey(workspace, key, new Date(end))).toBe(`expired ${new Date(end).toISOString()}`);
      // An operator's key of the same tenant does not expire.
      const operatorKey = (await issueApiKey(workspaceServiceStore(workspace), first.tenant_id as string)).key;
      expect(await judgeKey(workspace, operatorKey, new Date(end + 400 * DAY))).toBe(first.tenant_id);
      expect(await judgeKey(workspace, `svc_pro_${'A'.repeat(32)}`, new Date(end))).toBe('unknown');

      // Renewed after it lapsed: the term starts again from the payment, and the old key works again.
      const lapsed = new Date(end + 5 * DAY);
      const renewal = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'pro', contact: 'renew@example.com' }, PRO_MONTH),
        { confirmations: 1, now: lapsed },
      );
      expect(renewal.expires_at).toBe(lapsed.getTime() + TERM_MS.month);
      expect(await judgeKey(workspace, key, new Date(lapsed.getTime() + DAY))).toBe(first.tenant_id);
    } finally {
      workspace.close();
    }
  });

  it('records underpaid, wrong token, bad memos, enterprise and reverted payments, issuing nothing', async () => {
    const workspace = freshWorkspace();
    try {
      const now = new Date('2026-11-26T00:00:00Z');
      const observe = (tx: string) =>
        observePayment(workspaceServiceStore(workspace), workspace, chain, tx, { confirmations: 1, now });

      const underpaid = await observe(await pay({ tier: 'pro', contact: 'cheap@example.com' }, 50_000_000n));
      expect(underpaid).toMatchObject({ state: 'underpaid', tier: 'pro', amount: '50000000', key_prefix: null });
      expect(underpaid.reason).toMatch(/Paid 50\.000000; the pro month is 99\.000000/);

      const otherFolder = fs.mkdtempSync(path.join(directory, 'other-token-'));
      const other = await embeddedStablecoin(testChain.client, otherFolder, 'anvil-local');
      expect(other.token).not.toBe(chain.config.token);
      const wrong = await observe(
        await pay({ tier: 'pro', contact: 'a@example.com' }, PRO_MONTH, { token: other.token }),
      );
      expect(wrong).toMatchObject({ state: 'wrong_token', token: other.token });

      const duplicate = await observe(
        await pay(utf8Encode('{"tier":"pro","contact":"a@example.com","tier":"scale"}'), PRO_MONTH),
      );
      expect(duplicate).toMatchObject({ state: 'memo_invalid' });
      expect(duplicate.reason).toMatch(/names a member twice/);
      const none = await observe(await pay(new Uint8Array(), PRO_MONTH));
      expect(none.reason).toMatch(/no memo/);
      const badContact = await observe(await pay(utf8Encode('{"tier":"pro","contact":"nobody"}'), PRO_MONTH));
      expect(badContact).toMatchObject({ state: 'memo_invalid' });

      const enterprise = await observe(await pay({ tier: 'enterprise', contact: 'bigco.example' }, 5_000_000_000n));
      expect(enterprise).toMatchObject({ state: 'contact_sales', tier: 'enterprise', contact: 'bigco.example' });
      expect(enterprise.reason).toMatch(/postmaster@bigco\.example/);

      const reverted = await observe(
        await pay({ tier: 'pro', contact: 'a@example.com' }, 10n ** 20n, { gas: 200_000n }),
      );
      expect(reverted).toMatchObject({ state: 'reverted' });

      expect(listApiKeys(workspace.ledger.readable)).toEqual([]);
      expect(listTenants(workspace.ledger.readable)).toEqual([]);
      expect((await listPayments(workspaceServiceStore(workspace))).map((payment) => payment.delivery.state)).toEqual(
        Array(7).fill('none'),
      );
    } finally {
      workspace.close();
    }
  }, 60_000);

  it('refuses a payment made by transferFrom: the memo must follow the token’s own transfer call', async () => {
    const workspace = freshWorkspace();
    try {
      const owner = privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[5] as `0x${string}`).address;
      const spender = privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[6] as `0x${string}`).address;
      const word = (hex: string): string => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
      const approve = hexToBytes(`0x095ea7b3${word(spender)}${word(PRO_MONTH.toString(16))}`);
      await sendCall(testChain.rpcUrl, DEVELOPMENT_ACCOUNT_KEYS[5] as `0x${string}`, chain.config.token, approve);
      const memo = encodeMemo({ tier: 'pro', contact: 'spender@example.com' });
      const call = hexToBytes(
        `0x23b872dd${word(owner)}${word(chain.config.treasury)}${word(PRO_MONTH.toString(16))}${Buffer.from(memo).toString('hex')}`,
      );
      const tx = await sendCall(
        testChain.rpcUrl,
        DEVELOPMENT_ACCOUNT_KEYS[6] as `0x${string}`,
        chain.config.token,
        call,
      );
      const view = await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, { confirmations: 1 });
      expect(view).toMatchObject({ state: 'memo_invalid', amount: PRO_MONTH.toString(), token: chain.config.token });
      expect(view.reason).toMatch(/not transfer\(address,uint256\)/);
      expect(listApiKeys(workspace.ledger.readable)).toEqual([]);
    } finally {
      workspace.close();
    }
  });

  it('waits for confirmations, and a reorganisation before them issues nothing (dropped)', async () => {
    const workspace = freshWorkspace();
    try {
      const now = new Date('2026-11-26T00:00:00Z');
      const snapshot = await testChain.snapshot();
      const tx = await pay({ tier: 'pro', contact: 'reorg@example.com' }, PRO_MONTH);
      expect(
        await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, { confirmations: 3, now }),
      ).toMatchObject({
        state: 'pending_confirmations',
        term: 'month',
        key_prefix: null,
      });
      await testChain.mine(1);
      expect(
        (await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, { confirmations: 3, now })).state,
      ).toBe('pending_confirmations');
      await testChain.revert(snapshot);
      await testChain.mine(5);
      const dropped = await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, {
        confirmations: 3,
        now,
      });
      expect(dropped).toMatchObject({ state: 'dropped', key_prefix: null });
      expect(listApiKeys(workspace.ledger.readable)).toEqual([]);
      expect(listTenants(workspace.ledger.readable)).toEqual([]);

      // A payment that stays on chain is issued once deep enough.
      const kept = await pay({ tier: 'pro', contact: 'kept@example.com' }, PRO_MONTH);
      expect(
        (await observePayment(workspaceServiceStore(workspace), workspace, chain, kept, { confirmations: 3, now }))
          .state,
      ).toBe('pending_confirmations');
      await testChain.mine(2);
      expect(
        (await observePayment(workspaceServiceStore(workspace), workspace, chain, kept, { confirmations: 3, now }))
          .state,
      ).toBe('issued');
    } finally {
      workspace.close();
    }
  });

  it('seals the key for a did:key contact, and refuses what it cannot look up', async () => {
    const workspace = freshWorkspace();
    try {
      const did = didKeyFromEd25519(new Uint8Array(32).fill(3));
      const tx = await pay({ tier: 'scale', contact: did }, 499_000_000n);
      const view = await observePayment(workspaceServiceStore(workspace), workspace, chain, tx, {
        confirmations: 1,
        mailChannel: 'smtp',
      });
      expect(view).toMatchObject({ state: 'issued', contact: did, delivery: { channel: 'sealed', to: did } });
      await expect(sealedEnvelope(workspaceServiceStore(workspace), tx)).rejects.toThrow(
        expect.objectContaining({ code: 'not_found' }),
      );
      const mailed = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'pro', contact: 'example.net' }, PRO_MONTH),
        { confirmations: 1, mailChannel: 'smtp' },
      );
      expect(mailed.delivery).toMatchObject({ channel: 'smtp', to: 'postmaster@example.net' });
      await expect(sealedEnvelope(workspaceServiceStore(workspace), mailed.tx_hash)).rejects.toThrow(
        expect.objectContaining({ code: 'not_sealed' }),
      );

      await expect(
        observePayment(workspaceServiceStore(workspace), workspace, chain, `0x${'9'.repeat(64)}`, { confirmations: 1 }),
      ).rejects.toThrow(expect.objectContaining({ code: 'not_found' }));
      await expect(
        observePayment(workspaceServiceStore(workspace), workspace, chain, '0x1234', { confirmations: 1 }),
      ).rejects.toThrow(expect.objectContaining({ code: 'invalid_request' }));
      await expect(paymentStatus(workspaceServiceStore(workspace), 'nope')).rejects.toThrow(
        expect.objectContaining({ code: 'invalid_request' }),
      );
      expect(await paymentStatus(workspaceServiceStore(workspace), `0x${'9'.repeat(64)}`)).toBeUndefined();
    } finally {
      workspace.close();
    }
  });

  it('keeps a contact out of a tenant made for another contact or by an operator', async () => {
    const workspace = freshWorkspace();
    try {
      // An operator made the tenant the contact's id would be.
      await createTenant(workspaceServiceStore(workspace), paymentTenantId('pro', 'taken.example'), 'pro');
      const view = await observePayment(
        workspaceServiceStore(workspace),
        workspace,
        chain,
        await pay({ tier: 'pro', contact: 'taken.example' }, PRO_MONTH),
        { confirmations: 1 },
      );
      expect(view.state).toBe('issued');
      expect(view.tenant_id).toBe(paymentTenantId('pro', 'taken.example', true));
      expect(view.tenant_id).toMatch(/^pay-pro-taken\.example-[0-9a-f]{16}$/);
    } finally {
      workspace.close();
    }
  });
});

describe('paymentTenantId', () => {
  it('is pay-<tier>-<contact> when it fits unchanged, else a cut slug with 8 hex of the contact', () => {
    expect(paymentTenantId('pro', 'example.com')).toBe('pay-pro-example.com');
    expect(paymentTenantId('scale', 'a@example.com')).toMatch(/^pay-scale-a-example\.com-[0-9a-f]{8}$/);
    const long = paymentTenantId('pro', `${'x'.repeat(80)}.example`);
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^pay-pro-x+-[0-9a-f]{8}$/);
    // A domain spelled like another contact's hashed id gets a hash of its own.
    const hashed = paymentTenantId('pro', 'a@example.com');
    const lookalike = hashed.slice('pay-pro-'.length);
    expect(paymentTenantId('pro', lookalike)).not.toBe(hashed);
    const did = didKeyFromEd25519(new Uint8Array(32).fill(9));
    expect(paymentTenantId('pro', did)).toMatch(/^pay-pro-did-key-z6mk[a-z0-9]+-[0-9a-f]{8}$/);
  });
});
