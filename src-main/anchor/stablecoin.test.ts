import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, getAddress, toHex, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { STABLECOIN_DECIMALS } from '../../src-shared/api/payments';
import { EMBEDDED_NETWORK } from './anvil';
import {
  DEVELOPMENT_ACCOUNT_KEYS,
  DEVELOPMENT_ACCOUNT_TOKENS,
  embeddedStablecoin,
  readStoredStablecoin,
  sendCall,
  STABLECOIN_ABI,
} from './stablecoin';
import { startTestChainWithToken, type TestChainWithToken } from './test-support';

const FLOOR = DEVELOPMENT_ACCOUNT_TOKENS * 10n ** BigInt(STABLECOIN_DECIMALS);

function transferWithMemo(to: string, amount: bigint, memo: string): Uint8Array {
  const call = encodeFunctionData({ abi: STABLECOIN_ABI, functionName: 'transfer', args: [getAddress(to), amount] });
  return Uint8Array.from(Buffer.concat([Buffer.from(call.slice(2), 'hex'), Buffer.from(memo, 'utf8')]));
}

describe('the embedded chain’s stablecoin (real anvil, real ERC-20)', () => {
  let chain: TestChainWithToken;
  beforeAll(async () => {
    chain = await startTestChainWithToken();
  }, 60_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it('is deployed with six decimals, and every development account holds 1,000,000 tokens', async () => {
    expect(chain.chain.config).toMatchObject({
      network: EMBEDDED_NETWORK,
      chainId: 31337,
      decimals: 6,
      embedded: true,
    });
    expect(readStoredStablecoin(chain.anchorFolder)).toEqual({
      network: EMBEDDED_NETWORK,
      chain_id: 31337,
      token: chain.chain.config.token,
      treasury: chain.chain.config.treasury,
    });
    // The written-out keys are anvil's: the first ten of its well-known mnemonic.
    expect(DEVELOPMENT_ACCOUNT_KEYS).toEqual(
      Array.from({ length: 10 }, (_, index) =>
        toHex(
          mnemonicToAccount('test test test test test test test test test test test junk', {
            addressIndex: index,
          }).getHdKey().privateKey!,
        ),
      ),
    );
    expect(privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[0] as Hex).address).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    for (const key of DEVELOPMENT_ACCOUNT_KEYS)
      expect(await chain.chain.balanceOf(privateKeyToAccount(key).address)).toBe(FLOOR);
    expect(await chain.chain.balanceOf(chain.chain.config.treasury)).toBe(0n);
  });

  it('shows a transfer with a memo to the treasury: its log, its call data and its receipt', async () => {
    const payer = privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[1] as Hex);
    const memo = '{"contact":"alice@example.com","tier":"pro"}';
    const before = await chain.chain.head();
    const hash = await sendCall(
      chain.rpcUrl,
      DEVELOPMENT_ACCOUNT_KEYS[1] as Hex,
      chain.chain.config.token,
      transferWithMemo(chain.chain.config.treasury, 99_000_000n, memo),
    );
    const transfers = await chain.chain.transfersToTreasury(before + 1, await chain.chain.head());
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      tx_hash: hash,
      token: chain.chain.config.token,
      from: payer.address.toLowerCase(),
      to: chain.chain.config.treasury,
      amount: 99_000_000n,
    });
    const transaction = await chain.chain.paymentTransaction(hash);
    expect(transaction).toMatchObject({
      status: 'success',
      to: chain.chain.config.token,
      from: payer.address.toLowerCase(),
    });
    expect(transaction?.input.length).toBe(68 + Buffer.byteLength(memo));
    expect(Buffer.from(transaction?.input.slice(68) ?? []).toString('utf8')).toBe(memo);
    expect(transaction?.transfers).toEqual(transfers);
    expect(await chain.chain.balanceOf(chain.chain.config.treasury)).toBe(99_000_000n);
    // A transfer elsewhere is not a transfer to the treasury.
    const elsewhere = await sendCall(
      chain.rpcUrl,
      DEVELOPMENT_ACCOUNT_KEYS[2] as Hex,
      chain.chain.config.token,
      transferWithMemo(privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[3] as Hex).address, 5n, memo),
    );
    const all = await chain.chain.transfersToTreasury(before + 1, await chain.chain.head());
    expect(all.map((transfer) => transfer.tx_hash)).not.toContain(elsewhere);
  });

  it('shows a reverted transfer as reverted, and an unknown hash as unknown', async () => {
    const poor = generatePrivateKey();
    await chain.client.fundOnDevelopmentChain(privateKeyToAccount(poor).address);
    const hash = await sendCall(
      chain.rpcUrl,
      poor,
      chain.chain.config.token,
      transferWithMemo(chain.chain.config.treasury, 99_000_000n, '{}'),
      { gas: 200_000n },
    );
    const transaction = await chain.chain.paymentTransaction(hash);
    expect(transaction?.status).toBe('reverted');
    expect(transaction?.transfers).toEqual([]);
    expect(await chain.chain.paymentTransaction(`0x${'ab'.repeat(32)}`)).toBeUndefined();
    await expect(chain.chain.paymentTransaction('0x12')).rejects.toThrow(/64 hex/);
  });

  it('a snapshot reverted takes a payment off the chain', async () => {
    const id = await chain.snapshot();
    const hash = await sendCall(
      chain.rpcUrl,
      DEVELOPMENT_ACCOUNT_KEYS[4] as Hex,
      chain.chain.config.token,
      transferWithMemo(chain.chain.config.treasury, 1n, '{}'),
    );
    expect(await chain.chain.paymentTransaction(hash)).toBeDefined();
    await chain.revert(id);
    await chain.mine(3);
    expect(await chain.chain.paymentTransaction(hash)).toBeUndefined();
  });

  it('a restart keeps the token and tops the development accounts up again', async () => {
    const spent = privateKeyToAccount(DEVELOPMENT_ACCOUNT_KEYS[1] as Hex).address;
    expect(await chain.chain.balanceOf(spent)).toBe(FLOOR - 99_000_000n);
    const again = await embeddedStablecoin(chain.client, chain.anchorFolder, EMBEDDED_NETWORK);
    expect(again.token).toBe(chain.chain.config.token);
    expect(again.treasury).toBe(chain.chain.config.treasury);
    expect(await chain.chain.balanceOf(spent)).toBe(FLOOR);
  });
});
