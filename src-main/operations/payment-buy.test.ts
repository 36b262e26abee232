import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseMemo, splitTransferCalldata } from '../../src-shared/payments/memo';
import { startTestChainWithToken, type TestChainWithToken } from '../anchor/test-support';
import { DEVELOPMENT_ACCOUNT_KEYS } from '../anchor/stablecoin';
import { buyKeyOnChain, developmentAccountKey, keyPrice } from './payment-buy';

// The buyer's side of PROTOCOL 13 on a real anvil with the real token contract: the transfer
// reaches the treasury with the tier's price, and its call data carries the memo the service
// reads back (parseMemo, the service's own reader).
const DID_KEY = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

describe('buying a key on chain', () => {
  let chain: TestChainWithToken;
  beforeAll(async () => {
    chain = await startTestChainWithToken();
  }, 60_000);
  afterAll(async () => {
    await chain?.stop();
  });

  function options(overrides: Partial<Parameters<typeof buyKeyOnChain>[0]> = {}): Parameters<typeof buyKeyOnChain>[0] {
    return {
      rpcUrl: chain.rpcUrl,
      privateKey: developmentAccountKey(3),
      token: chain.chain.config.token,
      treasury: chain.chain.config.treasury,
      tier: 'pro',
      contact: 'buyer@example.com',
      annual: false,
      ...overrides,
    };
  }

  it('prices a month at the monthly price and a year at ten months', () => {
    expect(keyPrice('pro', false)).toBe(99_000_000n);
    expect(keyPrice('pro', true)).toBe(990_000_000n);
    expect(keyPrice('scale', false)).toBe(499_000_000n);
    expect(keyPrice('scale', true)).toBe(4_990_000_000n);
  });

  it('names the development accounts 0 to 9 and no other', () => {
    expect(developmentAccountKey(0)).toBe(DEVELOPMENT_ACCOUNT_KEYS[0]);
    expect(developmentAccountKey(9)).toBe(DEVELOPMENT_ACCOUNT_KEYS[9]);
    for (const account of [-1, 10, 1.5, Number.NaN]) expect(() => developmentAccountKey(account)).toThrow(RangeError);
  });

  it('sends the price to the treasury with the memo after the call, as the service reads it', async () => {
    const before = await chain.chain.balanceOf(chain.chain.config.treasury);
    const payer = privateKeyToAccount(developmentAccountKey(3)).address.toLowerCase();
    const bought = await buyKeyOnChain(options({ issuerDid: 'did:web:agent.example.com' }));
    expect(bought.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(bought.amount).toBe(99_000_000n);
    expect(await chain.chain.balanceOf(chain.chain.config.treasury)).toBe(before + 99_000_000n);

    const transaction = await chain.chain.paymentTransaction(bought.tx_hash);
    expect(transaction).toMatchObject({ status: 'success', from: payer, to: chain.chain.config.token });
    const call = splitTransferCalldata(transaction!.input);
    expect(call).toMatchObject({ recipient: chain.chain.config.treasury, amount: 99_000_000n });
    expect(Buffer.from(call!.memo).toString('utf8')).toBe(
      '{"contact":"buyer@example.com","issuer_did":"did:web:agent.example.com","tier":"pro"}',
    );
    expect(parseMemo(call!.memo)).toEqual({
      ok: true,
      memo: { tier: 'pro', contact: 'buyer@example.com', issuer_did: 'did:web:agent.example.com' },
    });
  });

  it('pays ten months for a year, to a did:key contact', async () => {
    const bought = await buyKeyOnChain(options({ tier: 'scale', annual: true, contact: DID_KEY }));
    expect(bought.amount).toBe(4_990_000_000n);
    const [transfer] = (await chain.chain.paymentTransaction(bought.tx_hash))!.transfers;
    expect(transfer).toMatchObject({ to: chain.chain.config.treasury, amount: 4_990_000_000n });
    expect(parseMemo(bought.memo)).toEqual({ ok: true, memo: { tier: 'scale', contact: DID_KEY } });
  });

  it('refuses a memo the service would not read, and sends nothing', async () => {
    const head = await chain.chain.head();
    await expect(buyKeyOnChain(options({ contact: 'nobody' }))).rejects.toMatchObject({
      code: 'contact_invalid',
      kind: 'invalid_input',
      details: [{ path: '/contact' }],
    });
    await expect(buyKeyOnChain(options({ issuerDid: 'did:web:has space' }))).rejects.toMatchObject({
      code: 'memo_invalid',
      message: expect.stringMatching(/issuer_did .*Nothing was paid\.$/),
    });
    await expect(buyKeyOnChain(options({ contact: 'did:web:example.com' }))).rejects.toMatchObject({
      code: 'contact_invalid',
    });
    expect(await chain.chain.head()).toBe(head);
  });

  it('says the chain did not take the payment when the account cannot pay, never naming its key', async () => {
    const poor = generatePrivateKey();
    const refused = buyKeyOnChain(options({ privateKey: poor }));
    await expect(refused).rejects.toMatchObject({ code: 'payment_not_sent', kind: 'refused' });
    const message = await refused.catch((error: Error) => error.message);
    expect(message).toMatch(/^The chain did not take the payment, so nothing was paid: /);
    expect(message).not.toContain(poor.slice(2));
    // A chain that does not answer.
    await expect(buyKeyOnChain(options({ rpcUrl: 'http://127.0.0.1:9' }))).rejects.toMatchObject({
      code: 'payment_not_sent',
    });
  });

  it('checks its own input', async () => {
    await expect(buyKeyOnChain(options({ token: 'token' }))).rejects.toThrow(TypeError);
    await expect(buyKeyOnChain(options({ privateKey: '0x12' }))).rejects.toThrow(TypeError);
    await expect(buyKeyOnChain(options({ tier: 'enterprise' as 'pro' }))).rejects.toThrow(RangeError);
  });
});
