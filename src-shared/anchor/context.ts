/**
 * Context packs (docs/anchoring.md, "Air-gapped verification"): the words shared by the pack's
 * maker, its checker and the app. A context pack carries a chain's evidence for anchor
 * transactions (headers, transactions, receipts and their Merkle-Patricia proofs), signed by the
 * workstation that gathered it, so that steps 2 and 3 can be answered with no network.
 */

/** The format string of a pack's manifest. */
export const CONTEXT_PACK_FORMAT = 'evroom-context-pack/1';

/** A block by number and hash (`0x` and 64 lowercase hex). */
export interface ContextHead {
  number: number;
  hash: string;
}

/** What a step answered from a pack records about the pack. */
export interface ContextEvidence {
  /** `ctx_` and the first 32 hex characters of SHA-256 of the manifest's bytes. */
  pack_id: string;
  /** When the pack was made (RFC 3339, UTC), as its signer claims. */
  made_at: string;
  /** The origin (scheme, host, port) of the JSON-RPC the pack was gathered from, as its signer claims. */
  rpc: string;
  chain_id: number;
  /** The pack's head: the last header it carries. */
  head: ContextHead;
  /** `checked` only when a pinned block hash matched a header of the pack; else `claimed`. */
  head_trust: 'claimed' | 'checked';
  /** The pin that checked the head, when `head_trust` is `checked`. */
  pinned?: ContextHead;
  /** The did:key of the Ed25519 key whose signature of the manifest verified. */
  signer: string;
}

/** A block hash pinned from a trusted source (Settings, or `--pin` of the CLI). */
export interface PinnedBlock {
  chain_id: number;
  number: number;
  /** `0x` and 64 lowercase hex. */
  hash: string;
  /** Where the user took it from. */
  note?: string;
  /** When it was pinned (ms since the epoch). */
  pinned_at?: number;
}

/** An imported pack, as Settings lists it. */
export interface ContextPackSummary extends Omit<ContextEvidence, 'head_trust' | 'pinned'> {
  /** Anchor transactions it carries. */
  anchors: number;
  /** The headers it carries, both ends included. */
  headers: { from: number; to: number };
  /** Transparency-log checkpoints it carries (recorded as seen on import; docs/logs.md). */
  checkpoints: number;
  /**
   * On the import's answer only: how many of its checkpoints disagree with one seen before (a
   * split view; the Logs view shows them).
   */
  log_split_views?: number;
  /** When it was imported (ms since the epoch). */
  imported_at: number;
  /** Its file, relative to the data folder. */
  file: string;
}

/** Where a step's answer came from: a live chain RPC or a context pack. */
export type StepEvidence = 'chain' | 'context';
