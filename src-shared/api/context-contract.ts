/**
 * The context packs part of the app API contract (issue 29; docs/anchoring.md, "Air-gapped
 * verification"): importing, listing and removing packs, and pinning block hashes, for
 * Settings. contract.ts names the methods; this module keeps their shapes and validators.
 *
 * A pack is uploaded, never named by path: as base64url in `context.import` (the desktop app),
 * or as raw bytes to `/upload/context.import` in local web mode. An imported pack is checked
 * whole (signature, digests, header chain) before it is stored; a refused pack stores nothing.
 */
import type { ContextPackSummary, PinnedBlock } from '../anchor/context';
import { ApiInputError, objectInput, optionalString, stringField } from './validate';

/** The largest context pack uploaded as base64url (about 48 MiB of zip). */
export const MAX_CONTEXT_PACK_B64 = 64 * 1024 * 1024;
/** The longest note on a pinned block. */
export const MAX_PIN_NOTE = 200;
/** A pack id: `ctx_` and 32 lowercase hex digits. */
export const CONTEXT_PACK_ID = /^ctx_[0-9a-f]{32}$/;
/** A block hash as typed: `0x` and 64 hex digits (either case; stored lowercase). */
export const BLOCK_HASH = /^0x[0-9a-fA-F]{64}$/;

/** The inputs of the context methods. */
export interface ContextApiParams {
  'context.list': undefined;
  /** Imports an uploaded pack (its zip's bytes as base64url; `name` for messages). */
  'context.import': { data: string; name?: string };
  'context.remove': { pack_id: string };
  'context.pins': undefined;
  /** Pins a block hash taken from a trusted source; one pin per (chain_id, number): replaces. */
  'context.pin': { chain_id: number; number: number; hash: string; note?: string };
  'context.unpin': { chain_id: number; number: number };
}

/** The results of the context methods. */
export interface ContextApiResults {
  /** The imported packs, highest head first. */
  'context.list': ContextPackSummary[];
  'context.import': ContextPackSummary;
  'context.remove': { pack_id: string; removed: true };
  'context.pins': PinnedBlock[];
  'context.pin': PinnedBlock;
  'context.unpin': { chain_id: number; number: number; removed: true };
}

type Plain = Record<string, unknown>;

function wholeNumber(source: Plain, name: string, min: number, words: string): number {
  const value = source[name];
  if (value === undefined) throw new ApiInputError(`${name} is required: ${words}`, `/${name}`);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new ApiInputError(`${name} must be ${words}`, `/${name}`);
  return value;
}

const CHAIN_WORDS = 'the chain id, a whole number from 1 (e.g. 1 for Ethereum mainnet, 31337 for anvil)';
const NUMBER_WORDS = 'the block number, a whole number from 0';

/** The validators of the context methods (contract-validators.ts adds them to APP_API). */
export const CONTEXT_API: { [M in keyof ContextApiParams]: (input: unknown) => ContextApiParams[M] } = {
  'context.list': (input) => {
    objectInput(input, []);
    return undefined;
  },
  'context.import': (input) => {
    const source = objectInput(input, ['name', 'data']);
    if (source.data === undefined)
      throw new ApiInputError(
        'data is required: the pack as base64url (the app imports uploads, never a path)',
        '/data',
      );
    const data = stringField(source, 'data', MAX_CONTEXT_PACK_B64, 0);
    if (!/^[A-Za-z0-9_-]*$/.test(data)) throw new ApiInputError('data must be base64url without padding', '/data');
    const name = optionalString(source, 'name', 512);
    // eslint-disable-next-line no-control-regex -- control characters are what this check refuses in a name
    if (name !== undefined && /[\u0000-\u001f\u007f]/.test(name))
      throw new ApiInputError('name must not contain control characters', '/name');
    return name === undefined ? { data } : { data, name };
  },
  'context.remove': (input) => {
    const source = objectInput(input, ['pack_id']);
    const packId = source.pack_id;
    if (typeof packId !== 'string' || !CONTEXT_PACK_ID.test(packId))
      throw new ApiInputError('pack_id must be a pack id: ctx_ and 32 lowercase hex digits', '/pack_id');
    return { pack_id: packId };
  },
  'context.pins': (input) => {
    objectInput(input, []);
    return undefined;
  },
  'context.pin': (input) => {
    const source = objectInput(input, ['chain_id', 'number', 'hash', 'note']);
    const chainId = wholeNumber(source, 'chain_id', 1, CHAIN_WORDS);
    const number = wholeNumber(source, 'number', 0, NUMBER_WORDS);
    const hash = source.hash;
    if (typeof hash !== 'string' || !BLOCK_HASH.test(hash.trim()))
      throw new ApiInputError('hash must be a block hash: 0x and 64 hex digits', '/hash');
    const note = source.note === undefined || source.note === '' ? undefined : source.note;
    if (note !== undefined) {
      if (typeof note !== 'string' || note.length > MAX_PIN_NOTE)
        throw new ApiInputError(`note must be text of at most ${MAX_PIN_NOTE} characters`, '/note');
      // eslint-disable-next-line no-control-regex -- control characters are what this check refuses in a note
      if (/[\u0000-\u001f\u007f]/.test(note))
        throw new ApiInputError('note must not contain control characters', '/note');
    }
    const pin = { chain_id: chainId, number, hash: hash.trim().toLowerCase() };
    return note === undefined ? pin : { ...pin, note };
  },
  'context.unpin': (input) => {
    const source = objectInput(input, ['chain_id', 'number']);
    return {
      chain_id: wholeNumber(source, 'chain_id', 1, CHAIN_WORDS),
      number: wholeNumber(source, 'number', 0, NUMBER_WORDS),
    };
  },
};
