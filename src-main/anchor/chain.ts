/**
 * The chain client: the one place that talks EVM JSON-RPC (viem), for the anchor engine and for
 * counterparty steps 2 and 3 (PROTOCOL section 8).
 *
 * The engine signs a root's transaction locally ({@link signAnchorTransaction}) so that it can
 * record the signed bytes, hash and nonce before anything is broadcast; broadcasting the same
 * bytes again is harmless (one nonce, one transaction), which is what makes a restart safe.
 */
import { readFileSync, statSync } from 'node:fs';
import { createPublicClient, http, keccak256, toHex, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { anchorCalldata, ANCHOR_DATA_PREFIX_HEX } from '../../src-shared/anchor/proof';
import { hexEncode, lowerHexDecode } from '../../src-shared/crypto/encoding';

/** Why a chain call failed: `unreachable` (no answer: retry later) or `rejected` (an answer). */
export class ChainError extends Error {
  readonly kind: 'unreachable' | 'rejected';
  constructor(kind: 'unreachable' | 'rejected', message: string) {
    super(message);
    this.name = 'ChainError';
    this.kind = kind;
  }
}

/** A transaction as steps 2 and 3 see it. */
export interface ChainTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: bigint;
  input: string;
  nonce: number;
  /** Null while it waits in the mempool. */
  blockNumber: number | null;
}

/** A transaction signed but perhaps not yet broadcast. */
export interface SignedAnchorTransaction {
  raw: Hex;
  hash: Hex;
  nonce: number;
  from: string;
}

const PRIVATE_KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/**
 * Reads an anchor account key file: the private key as `0x` and 64 hex characters (a trailing
 * newline is allowed). The file must not be readable by group or others.
 *
 * @param file - Path.
 * @returns The key.
 * @throws ChainError (`rejected`) naming what is wrong; never the key.
 */
export function readAnchorKeyFile(file: string): Hex {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ChainError(
      'rejected',
      `Cannot read the chain key file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
    );
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ChainError(
      'rejected',
      `The chain key file ${file} is readable by others (mode ${(mode & 0o777).toString(8)}); run chmod 600 on it.`,
    );
  }
  if (!PRIVATE_KEY_PATTERN.test(text))
    throw new ChainError(
      'rejected',
      `The chain key file ${file} must hold the private key as 0x and 64 hex characters.`,
    );
  return text.toLowerCase() as Hex;
}

/**
 * The root a transaction's data carries.
 *
 * @param input - The transaction's data as hex.
 * @returns The 32-byte root, or undefined when the data is not `0x4556524101` and 32 bytes.
 */
export function rootFromCalldata(input: string): Uint8Array | undefined {
  const text = input.toLowerCase();
  const prefix = `0x${ANCHOR_DATA_PREFIX_HEX}`;
  if (!text.startsWith(prefix) || text.length !== prefix.length + 64) return undefined;
  return lowerHexDecode(text.slice(prefix.length));
}

/** A chain error's first line, at most 300 characters (viem's messages go on with request details). */
export function describeChainError(error: unknown): string {
  const candidate = error as { shortMessage?: unknown; message?: unknown };
  const text =
    typeof candidate.shortMessage === 'string'
      ? candidate.shortMessage
      : typeof candidate.message === 'string'
        ? candidate.message
        : String(error);
  return text.split('\n')[0]?.slice(0, 300) ?? 'error';
}

/** Whether a chain error means no answer (retry later) rather than a refusal. */
export function isUnreachable(error: unknown): boolean {
  const name = (error as { name?: unknown }).name;
  const text = `${String(name)} ${describeChainError(error)} ${String((error as { details?: unknown }).details ?? '')}`;
  return /HttpRequestError|TimeoutError|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|took too long/i.test(text);
}

/** A JSON-RPC endpoint. */
export class ChainClient {
  readonly rpcUrl: string;
  private readonly client: PublicClient;

  /**
   * @param rpcUrl - `http(s)://...`
   * @param options - `timeoutMs` per request (default 10 s); `batch`: send concurrent requests
   *   as JSON-RPC batches (for many reads, as a context pack's headers).
   * @throws ChainError when the URL is not http(s).
   */
  constructor(rpcUrl: string, options: { timeoutMs?: number; batch?: boolean } = {}) {
    let parsed: URL;
    try {
      parsed = new URL(rpcUrl);
    } catch {
      throw new ChainError('rejected', `Not a URL: ${JSON.stringify(rpcUrl)}.`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new ChainError('rejected', `The chain RPC must be an http or https URL, not ${parsed.protocol}.`);
    this.rpcUrl = rpcUrl;
    this.client = createPublicClient({
      transport: http(rpcUrl, {
        timeout: options.timeoutMs ?? 10_000,
        retryCount: 0,
        ...(options.batch === true ? { batch: { batchSize: 100, wait: 0 } } : {}),
      }),
    });
  }

  /**
   * One JSON-RPC call, its answer as the chain gave it (hex strings, no formatting): for the
   * context pack, which keeps what the chain said.
   *
   * @param what - What is being read, for the error message.
   * @param method - The method (`eth_getBlockByNumber`, ...).
   * @param params - Its parameters.
   * @returns The `result`.
   * @throws ChainError `unreachable` or `rejected`.
   */
  request(what: string, method: string, params: unknown[]): Promise<unknown> {
    return this.call(what, () => this.client.request({ method: method as never, params: params as never }));
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ChainError) throw error;
      throw new ChainError(
        isUnreachable(error) ? 'unreachable' : 'rejected',
        `${what} at ${this.rpcUrl}: ${describeChainError(error)}`,
      );
    }
  }

  /** The chain id. */
  chainId(): Promise<number> {
    return this.call('Reading the chain id', () => this.client.getChainId());
  }

  /** The latest block number. */
  async blockNumber(): Promise<number> {
    return Number(await this.call('Reading the block number', () => this.client.getBlockNumber({ cacheTime: 0 })));
  }

  /** The account's next nonce, counting transactions still in the mempool. */
  nextNonce(address: string): Promise<number> {
    return this.call('Reading the account nonce', () =>
      this.client.getTransactionCount({ address: address as Hex, blockTag: 'pending' }),
    );
  }

  /** The account's nonce counting only mined transactions. */
  minedNonce(address: string): Promise<number> {
    return this.call('Reading the account nonce', () =>
      this.client.getTransactionCount({ address: address as Hex, blockTag: 'latest' }),
    );
  }

  /**
   * A transaction by hash.
   *
   * @returns It, or undefined when the chain does not know it.
   */
  async transaction(hash: string): Promise<ChainTransaction | undefined> {
    const found = await this.call('Fetching the transaction', async () => {
      try {
        return await this.client.getTransaction({ hash: hash as Hex });
      } catch (error) {
        if ((error as { name?: unknown }).name === 'TransactionNotFoundError') return undefined;
        throw error;
      }
    });
    if (found === undefined) return undefined;
    return {
      hash: found.hash,
      from: found.from.toLowerCase(),
      to: found.to === null ? null : found.to.toLowerCase(),
      value: found.value,
      input: found.input,
      nonce: found.nonce,
      blockNumber: found.blockNumber === null ? null : Number(found.blockNumber),
    };
  }

  /**
   * Whether a mined transaction succeeded.
   *
   * @returns `success`, `reverted`, or undefined when it is not mined.
   */
  async receiptStatus(hash: string): Promise<'success' | 'reverted' | undefined> {
    return this.call('Fetching the transaction receipt', async () => {
      try {
        return (await this.client.getTransactionReceipt({ hash: hash as Hex })).status;
      } catch (error) {
        if ((error as { name?: unknown }).name === 'TransactionReceiptNotFoundError') return undefined;
        throw error;
      }
    });
  }

  /**
   * Signs the zero-value self-transaction that posts a root. Nothing is sent.
   *
   * @param account - The anchor account.
   * @param root - The Merkle root.
   * @param nonce - The nonce to use (the engine's own count).
   * @returns The signed bytes, their hash, the nonce and the sender.
   */
  async signAnchorTransaction(
    account: PrivateKeyAccount,
    root: Uint8Array,
    nonce: number,
  ): Promise<SignedAnchorTransaction> {
    const data = anchorCalldata(root);
    const [chainId, fees, gas] = await Promise.all([
      this.chainId(),
      this.call('Estimating fees', () => this.client.estimateFeesPerGas()),
      this.call('Estimating gas', () =>
        this.client.estimateGas({ account: account.address, to: account.address, data, value: 0n }),
      ),
    ]);
    // Twice the estimate: a later rebroadcast of these very bytes must still be accepted.
    const raw = await account.signTransaction({
      chainId,
      nonce,
      to: account.address,
      value: 0n,
      data,
      gas: gas + gas / 5n,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      type: 'eip1559',
    });
    return { raw, hash: keccak256(raw), nonce, from: account.address.toLowerCase() };
  }

  /**
   * Broadcasts signed bytes. Sending bytes the chain already has is not an error.
   *
   * @returns The transaction hash.
   * @throws ChainError `unreachable` when the chain does not answer, `rejected` when it refuses.
   */
  async broadcast(raw: Hex): Promise<Hex> {
    const hash = keccak256(raw);
    try {
      return await this.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (isUnreachable(error))
        throw new ChainError('unreachable', `Broadcasting at ${this.rpcUrl}: ${describeChainError(error)}`);
      // Already known or already mined: the same bytes, nothing to do.
      const known = await this.transaction(hash);
      if (known !== undefined) return hash;
      throw new ChainError('rejected', `Broadcasting at ${this.rpcUrl}: ${describeChainError(error)}`);
    }
  }

  /**
   * Gives an account ether on a development chain (anvil's `anvil_setBalance`).
   *
   * @param address - The account.
   * @param wei - The balance to set; default 100 ether.
   */
  async fundOnDevelopmentChain(address: string, wei = 10n ** 20n): Promise<void> {
    await this.call('Funding the anchor account', () =>
      this.client.request({ method: 'anvil_setBalance' as never, params: [address, toHex(wei)] as never }),
    );
  }

  /**
   * Mines a block at once on a development chain (`evm_mine`), for tests of confirmations.
   */
  async mineOnDevelopmentChain(blocks = 1): Promise<void> {
    await this.call('Mining', () =>
      this.client.request({ method: 'anvil_mine' as never, params: [toHex(blocks)] as never }),
    );
  }
}

/**
 * The account of a private key.
 *
 * @param privateKey - `0x` and 64 hex characters.
 * @returns A viem account (signs locally).
 */
export function anchorAccount(privateKey: Hex): PrivateKeyAccount {
  return privateKeyToAccount(privateKey);
}

/** For tests and logs: the root as 0x hex. */
export function rootHex(root: Uint8Array): string {
  return `0x${hexEncode(root)}`;
}
