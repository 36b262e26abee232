/**
 * `evroom apikeys buy`, as an operation: the service's /pricing names the token, treasury and
 * price on the chain the buyer's RPC is; the buyer's wallet key file pays (docs/payments.md).
 */
import type { PaidTier, PricingChain } from '../../src-shared/api/payments';
import { ChainClient, ChainError, readAnchorKeyFile } from '../anchor/chain';
import { OperationError } from './errors';
import { buyKeyOnChain } from './payment-buy';

/** A payment sent by {@link purchaseKey}. */
export interface Purchase {
  tx_hash: string;
  amount: bigint;
  network: string;
  token: string;
  treasury: string;
}

/**
 * Pays for a key on the chain of `rpcUrl`, with the service's token and treasury for that chain.
 *
 * @param options.chains - The service's `/pricing` chains (payment-client.ts `pricingChains`).
 * @throws OperationError: `wallet_key_invalid` (the key file), `chain_unreachable`, `chain_not_sold`
 *   (the service sells no keys on that chain), and buyKeyOnChain's errors. Nothing is paid then.
 */
export async function purchaseKey(options: {
  rpcUrl: string;
  walletKeyFile: string;
  chains: readonly PricingChain[];
  tier: PaidTier;
  contact: string;
  issuerDid?: string;
  annual: boolean;
}): Promise<Purchase> {
  let privateKey: `0x${string}`;
  try {
    privateKey = readAnchorKeyFile(options.walletKeyFile);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    throw new OperationError(
      'invalid_input',
      'wallet_key_invalid',
      error.message.replace('chain key file', 'wallet key file'),
    );
  }
  let chainId: number;
  try {
    chainId = await new ChainClient(options.rpcUrl).chainId();
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    throw new OperationError(
      error.kind === 'unreachable' ? 'refused' : 'invalid_input',
      'chain_unreachable',
      `The chain could not be asked for its id, so nothing was paid: ${error.message}`,
    );
  }
  const chain = options.chains.find((entry) => entry.chain_id === chainId);
  if (chain === undefined)
    throw new OperationError(
      'refused',
      'chain_not_sold',
      `The service sells no keys on chain ${chainId} (the one at ${options.rpcUrl}); it sells on ${
        options.chains.map((entry) => `${entry.network} (chain ${entry.chain_id})`).join(', ') || 'no chain'
      }. Nothing was paid.`,
    );
  const bought = await buyKeyOnChain({
    rpcUrl: options.rpcUrl,
    privateKey,
    token: chain.token,
    treasury: chain.treasury,
    tier: options.tier,
    contact: options.contact,
    ...(options.issuerDid === undefined ? {} : { issuerDid: options.issuerDid }),
    annual: options.annual,
  });
  return {
    tx_hash: bought.tx_hash,
    amount: bought.amount,
    network: chain.network,
    token: chain.token,
    treasury: chain.treasury,
  };
}
