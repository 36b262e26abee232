/**
 * The stablecoin API keys are bought with (PROTOCOL section 13; docs/payments.md), as the chain
 * shows it: Transfer logs to the treasury, and the transaction behind each.
 *
 * On the embedded chain the token is our own OpenZeppelin ERC-20 with six decimals
 * (contracts/EvidenceRoomTestDollar.sol, compiled into stablecoin-artifact.json), deployed on first
 * start by an owner account kept in the data folder, with a treasury address made beside it; both
 * addresses are kept in `<data>/anchor/stablecoin.json`. At every start each of anvil's ten
 * development accounts is topped up to {@link DEVELOPMENT_ACCOUNT_TOKENS} whole tokens, so a buyer
 * on the local chain can pay at once. On any other chain the operator names the token and the
 * treasury (`--stablecoin`, `--treasury`).
 *
 * Only this room talks to a chain (ARCHITECTURE); the decisions about a payment are
 * src-main/operations/payments.ts's.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  getAddress,
  http,
  isAddress,
  parseAbiItem,
  toHex,
  type Abi,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { STABLECOIN_DECIMALS } from '../../src-shared/api/payments';
import { ChainError, describeChainError, isUnreachable, readAnchorKeyFile, type ChainClient } from './chain';
import artifact from './stablecoin-artifact.json';

/** Where the embedded chain's token and treasury are kept, in the data folder's anchor/. */
export const STABLECOIN_FILE = 'stablecoin.json';
/** The embedded token owner's key file (0600), in anchor/. */
export const STABLECOIN_OWNER_KEY_FILE = 'stablecoin-owner-key';
/** The embedded treasury's key file (0600), in anchor/: whoever holds the data folder can move its funds. */
export const TREASURY_KEY_FILE = 'treasury-key';
/** Whole tokens each development account holds at least after every start of the embedded chain. */
export const DEVELOPMENT_ACCOUNT_TOKENS = 1_000_000n;
/**
 * anvil's ten development accounts' private keys: the first ten of its well-known mnemonic
 * "test test test test test test test test test test test junk" (m/44'/60'/0'/0/i), public
 * knowledge, never to be used on a real chain. Written out rather than derived at load (ten HD
 * derivations cost a quarter of a second on every start); stablecoin.test.ts derives them again.
 */
export const DEVELOPMENT_ACCOUNT_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

/** The token and treasury a service takes payments in. */
export interface StablecoinConfig {
  /** The network name (as anchors carry it). */
  network: string;
  chainId: number;
  /** The token contract, lowercase `0x` hex. */
  token: string;
  /** The treasury address, lowercase. */
  treasury: string;
  decimals: 6;
  /** True on the embedded development chain (development accounts hold tokens). */
  embedded: boolean;
}

/** One ERC-20 Transfer log. */
export interface TokenTransfer {
  tx_hash: string;
  block_number: number;
  block_hash: string;
  log_index: number;
  /** The contract that emitted it, lowercase. */
  token: string;
  from: string;
  to: string;
  amount: bigint;
}

/** A mined transaction as a payment is judged from. */
export interface PaymentTransaction {
  tx_hash: string;
  status: 'success' | 'reverted';
  block_number: number;
  block_hash: string;
  from: string;
  /** The contract called, lowercase; null for a contract creation. */
  to: string | null;
  /** The call data. */
  input: Uint8Array;
  /** Every ERC-20 Transfer log of the receipt (any token). */
  transfers: TokenTransfer[];
}

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TOKEN_ABI = artifact.abi as Abi;

async function chainCall<T>(rpcUrl: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ChainError) throw error;
    throw new ChainError(
      isUnreachable(error) ? 'unreachable' : 'rejected',
      `${what} at ${rpcUrl}: ${describeChainError(error)}`,
    );
  }
}

function publicClient(rpcUrl: string): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }) });
}

function hexBytes(hex: string): Uint8Array {
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  return Uint8Array.from(Buffer.from(body, 'hex'));
}

/** A wallet on the chain of `rpcUrl` (id `chainId`) signing locally with `account`. */
function walletClient(rpcUrl: string, account: PrivateKeyAccount, chainId: number) {
  return createWalletClient({
    account,
    chain: {
      id: chainId,
      name: 'evroom',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    },
    transport: http(rpcUrl, { timeout: 30_000, retryCount: 0 }),
  });
}

/** A Transfer log as data, or undefined for a log that is not an ERC-20 Transfer. */
function transferOf(log: {
  address: string;
  topics: readonly Hex[];
  data: Hex;
  transactionHash: Hex | null;
  blockNumber: bigint | null;
  blockHash: Hex | null;
  logIndex: number | null;
}): TokenTransfer | undefined {
  if (log.transactionHash === null || log.blockNumber === null || log.blockHash === null || log.logIndex === null)
    return undefined;
  try {
    const decoded = decodeEventLog({ abi: [TRANSFER_EVENT], topics: log.topics as [Hex, ...Hex[]], data: log.data });
    return {
      tx_hash: log.transactionHash.toLowerCase(),
      block_number: Number(log.blockNumber),
      block_hash: log.blockHash.toLowerCase(),
      log_index: log.logIndex,
      token: log.address.toLowerCase(),
      from: decoded.args.from.toLowerCase(),
      to: decoded.args.to.toLowerCase(),
      amount: decoded.args.value,
    };
  } catch {
    // Not a Transfer with two indexed addresses (e.g. an ERC-721 Transfer): not a token transfer.
    return undefined;
  }
}

/** The payment token of one chain, read through JSON-RPC. */
export class StablecoinChain {
  readonly config: StablecoinConfig;
  readonly rpcUrl: string;
  private readonly client: PublicClient;

  /**
   * @param chain - The chain's client (its RPC URL is used).
   * @param config - The token and treasury.
   */
  constructor(chain: ChainClient, config: StablecoinConfig) {
    this.rpcUrl = chain.rpcUrl;
    this.config = { ...config, token: config.token.toLowerCase(), treasury: config.treasury.toLowerCase() };
    this.client = publicClient(chain.rpcUrl);
  }

  /** The latest block number. */
  async head(): Promise<number> {
    return Number(
      await chainCall(this.rpcUrl, 'Reading the block number', () => this.client.getBlockNumber({ cacheTime: 0 })),
    );
  }

  /**
   * Transfers of the token to the treasury in a range of blocks, in chain order.
   *
   * @param fromBlock - First block (inclusive).
   * @param toBlock - Last block (inclusive).
   */
  async transfersToTreasury(fromBlock: number, toBlock: number): Promise<TokenTransfer[]> {
    if (!Number.isSafeInteger(fromBlock) || !Number.isSafeInteger(toBlock) || fromBlock < 0 || toBlock < fromBlock)
      throw new RangeError(`transfersToTreasury: bad block range ${fromBlock}..${toBlock}`);
    const logs = await chainCall(this.rpcUrl, 'Reading the token’s transfer logs', () =>
      this.client.getLogs({
        address: this.config.token as Hex,
        event: TRANSFER_EVENT,
        args: { to: this.config.treasury as Hex },
        fromBlock: BigInt(fromBlock),
        toBlock: BigInt(toBlock),
      }),
    );
    return logs
      .map((log) => transferOf(log))
      .filter((transfer): transfer is TokenTransfer => transfer !== undefined)
      .sort((a, b) => a.block_number - b.block_number || a.log_index - b.log_index);
  }

  /**
   * A transaction with its receipt's Transfer logs.
   *
   * @param txHash - `0x` and 64 hex.
   * @returns it, or undefined when the chain does not know it or it is not mined.
   */
  async paymentTransaction(txHash: string): Promise<PaymentTransaction | undefined> {
    if (!/^0x[0-9a-fA-F]{64}$/.test(txHash)) throw new RangeError('A transaction hash is 0x and 64 hex characters.');
    const hash = txHash.toLowerCase() as Hex;
    const receipt = await chainCall(this.rpcUrl, 'Fetching the transaction receipt', async () => {
      try {
        return await this.client.getTransactionReceipt({ hash });
      } catch (error) {
        if ((error as { name?: unknown }).name === 'TransactionReceiptNotFoundError') return undefined;
        throw error;
      }
    });
    if (receipt === undefined) return undefined;
    const transaction = await chainCall(this.rpcUrl, 'Fetching the transaction', async () => {
      try {
        return await this.client.getTransaction({ hash });
      } catch (error) {
        if ((error as { name?: unknown }).name === 'TransactionNotFoundError') return undefined;
        throw error;
      }
    });
    if (transaction === undefined) return undefined;
    return {
      tx_hash: hash,
      status: receipt.status,
      block_number: Number(receipt.blockNumber),
      block_hash: receipt.blockHash.toLowerCase(),
      from: receipt.from.toLowerCase(),
      to: receipt.to === null ? null : receipt.to.toLowerCase(),
      input: hexBytes(transaction.input),
      transfers: receipt.logs
        .map((log) => transferOf(log))
        .filter((transfer): transfer is TokenTransfer => transfer !== undefined),
    };
  }

  /** The token balance of an address, in units. */
  async balanceOf(address: string): Promise<bigint> {
    return chainCall(
      this.rpcUrl,
      'Reading a token balance',
      () =>
        this.client.readContract({
          address: this.config.token as Hex,
          abi: TOKEN_ABI,
          functionName: 'balanceOf',
          args: [address as Hex],
        }) as Promise<bigint>,
    );
  }
}

/**
 * Sends a transaction calling `to` with `data` from the account of `privateKey`, and waits until
 * it is mined. `options.gas` fixes the gas (no estimate: a call that reverts is still mined).
 *
 * @returns the transaction hash (lowercase)
 * @throws ChainError `unreachable` or `rejected` (never naming the key)
 */
export async function sendCall(
  rpcUrl: string,
  privateKey: Hex,
  to: string,
  data: Uint8Array,
  options: { gas?: bigint } = {},
): Promise<string> {
  if (!isAddress(to, { strict: false })) throw new ChainError('rejected', `Not an address: ${JSON.stringify(to)}.`);
  const account = privateKeyToAccount(privateKey);
  const client = publicClient(rpcUrl);
  const chainId = await chainCall(rpcUrl, 'Reading the chain id', () => client.getChainId());
  const wallet = walletClient(rpcUrl, account, chainId);
  const hash = await chainCall(rpcUrl, 'Sending the transaction', () =>
    // A fixed gas skips the estimate, so a call that will revert is still sent and mined (tests of reverted payments).
    wallet.sendTransaction({
      to: getAddress(to),
      data: toHex(data),
      ...(options.gas === undefined ? {} : { gas: options.gas }),
    }),
  );
  await chainCall(rpcUrl, 'Waiting for the transaction', () =>
    client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 120_000 }),
  );
  return hash.toLowerCase();
}

/** A key file made on first use: 0600, `0x` + 64 hex (the anchor key's format). */
function keyFile(file: string): Hex {
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, `${generatePrivateKey()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readAnchorKeyFile(file);
}

interface StoredStablecoin {
  network: string;
  chain_id: number;
  token: string;
  treasury: string;
}

/**
 * Reads `<anchor folder>/stablecoin.json` (what `evroom apikeys redeem` uses for the embedded chain).
 *
 * @returns the stored token and treasury, or undefined when none was deployed yet
 * @throws ChainError (`rejected`) for a file that is not what this module writes
 */
export function readStoredStablecoin(anchorFolder: string): StoredStablecoin | undefined {
  const file = path.join(anchorFolder, STABLECOIN_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ChainError('rejected', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ChainError('rejected', `${file} is not JSON; remove it to deploy the token again.`);
  }
  const stored = value as Partial<StoredStablecoin>;
  if (
    typeof stored !== 'object' ||
    stored === null ||
    typeof stored.network !== 'string' ||
    typeof stored.chain_id !== 'number' ||
    typeof stored.token !== 'string' ||
    !isAddress(stored.token, { strict: false }) ||
    typeof stored.treasury !== 'string' ||
    !isAddress(stored.treasury, { strict: false })
  )
    throw new ChainError('rejected', `${file} does not name a network, chain id, token and treasury.`);
  return {
    network: stored.network,
    chain_id: stored.chain_id,
    token: stored.token.toLowerCase(),
    treasury: stored.treasury.toLowerCase(),
  };
}

/**
 * The embedded chain's stablecoin: deployed on first start (or again when the chain lost it),
 * development accounts topped up at every start.
 *
 * @param chain - The embedded chain's client.
 * @param anchorFolder - The data folder's anchor/ (0700).
 * @param network - The embedded network's name.
 * @returns the token's config
 * @throws ChainError when the chain refuses
 */
export async function embeddedStablecoin(
  chain: ChainClient,
  anchorFolder: string,
  network: string,
): Promise<StablecoinConfig> {
  const rpcUrl = chain.rpcUrl;
  const client = publicClient(rpcUrl);
  const ownerKey = keyFile(path.join(anchorFolder, STABLECOIN_OWNER_KEY_FILE));
  const owner = privateKeyToAccount(ownerKey);
  const treasury = privateKeyToAccount(keyFile(path.join(anchorFolder, TREASURY_KEY_FILE))).address.toLowerCase();
  await chain.fundOnDevelopmentChain(owner.address);
  const chainId = await chain.chainId();
  const wallet = walletClient(rpcUrl, owner, chainId);
  let stored = readStoredStablecoin(anchorFolder);
  if (stored !== undefined) {
    const code = await chainCall(rpcUrl, 'Reading the token’s code', () =>
      client.getCode({ address: stored?.token as Hex }),
    );
    // The chain's state was reset (its state file removed): the token is gone; deploy anew.
    if (code === undefined || code === '0x' || stored.chain_id !== chainId) stored = undefined;
  }
  if (stored === undefined) {
    const hash = await chainCall(rpcUrl, 'Deploying the stablecoin', () =>
      wallet.deployContract({ abi: TOKEN_ABI, bytecode: artifact.bytecode as Hex, args: [owner.address] }),
    );
    const receipt = await chainCall(rpcUrl, 'Waiting for the stablecoin’s deployment', () =>
      client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 }),
    );
    if (receipt.status !== 'success' || receipt.contractAddress === null || receipt.contractAddress === undefined)
      throw new ChainError('rejected', 'The stablecoin’s deployment failed on the embedded chain.');
    stored = { network, chain_id: chainId, token: receipt.contractAddress.toLowerCase(), treasury };
    const file = path.join(anchorFolder, STABLECOIN_FILE);
    fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  }
  const token = stored.token as Hex;
  const floor = DEVELOPMENT_ACCOUNT_TOKENS * 10n ** BigInt(STABLECOIN_DECIMALS);
  for (const key of DEVELOPMENT_ACCOUNT_KEYS) {
    const address = privateKeyToAccount(key).address;
    const balance = (await chainCall(rpcUrl, 'Reading a development account’s balance', () =>
      client.readContract({ address: token, abi: TOKEN_ABI, functionName: 'balanceOf', args: [address] }),
    )) as bigint;
    if (balance >= floor) continue;
    const hash = await chainCall(rpcUrl, 'Minting test tokens', () =>
      wallet.writeContract({ address: token, abi: TOKEN_ABI, functionName: 'mint', args: [address, floor - balance] }),
    );
    await chainCall(rpcUrl, 'Waiting for the mint', () =>
      client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 60_000 }),
    );
  }
  return { network, chainId, token: stored.token, treasury: stored.treasury, decimals: 6, embedded: true };
}

/**
 * The stablecoin of another chain, as the operator names it: checks that the token answers
 * `decimals()` with 6.
 *
 * @throws ChainError (`rejected`) for a bad address or a token of other decimals; `unreachable` when the chain does not answer
 */
export async function namedStablecoin(
  chain: ChainClient,
  network: string,
  token: string,
  treasury: string,
): Promise<StablecoinConfig> {
  if (!isAddress(token, { strict: false }))
    throw new ChainError('rejected', `--stablecoin must be an address (0x and 40 hex), not ${JSON.stringify(token)}.`);
  if (!isAddress(treasury, { strict: false }))
    throw new ChainError('rejected', `--treasury must be an address (0x and 40 hex), not ${JSON.stringify(treasury)}.`);
  const client = publicClient(chain.rpcUrl);
  const decimals = await chainCall(chain.rpcUrl, 'Reading the stablecoin’s decimals', () =>
    client.readContract({ address: token as Hex, abi: TOKEN_ABI, functionName: 'decimals' }),
  );
  if (Number(decimals) !== STABLECOIN_DECIMALS)
    throw new ChainError(
      'rejected',
      `The token ${token} has ${String(decimals)} decimals; prices are in a six-decimal stablecoin (as USDC).`,
    );
  return {
    network,
    chainId: await chain.chainId(),
    token: token.toLowerCase(),
    treasury: treasury.toLowerCase(),
    decimals: 6,
    embedded: false,
  };
}

/** The ERC-20 interface the token answers, for callers that build calls (tests, the buyer's command). */
export const STABLECOIN_ABI: Abi = TOKEN_ABI;
