/**
 * The contract between the rest of the program and each document format.
 *
 * A format folder (src-shared/formats/<name>/) exports one {@link FormatModule}: everything the
 * program knows about its documents. How to recognize and verify one, what bytes its signatures
 * cover, the facts the ledger files it under, how to issue one from caller fields, and its
 * labelled samples. The entry points (verify.ts, signed-content.ts, the ledger's receipt facts,
 * the issuance engine and the samples) consult the one table in registry.ts and hand the work to
 * the module. Adding a format therefore touches its own folder and one row of the registry.
 */
import type { CryptoProvider } from '../crypto/provider';
import type { JsonNode, JsonValue } from '../json/types';
import type { KeyAlgorithm, KeyEntry, SecretEntry, VerifyContext } from './context';
import type { JsonObject } from './fields';
import type { Report, ReportFormat } from './report';
import type { SampleKit } from './sample-kit';
import type { SignedBytes } from './signed-bytes';

/** Everything a format verifier is given. */
export interface FormatInput {
  /** The format {@link FormatModule.detect} answered for this document. */
  format: ReportFormat;
  /** The strictly parsed document, number lexemes kept. */
  tree: JsonNode;
  /** The same document as plain values, made on first use (see {@link FormatModule.detect}). */
  readonly value: JsonValue;
  /**
   * JCS (RFC 8785) of the whole document, computed at most once per verification (the ledger
   * needs it too, for the receipt's identity, and hands it in).
   */
  canonical(): string;
  ctx: VerifyContext;
  /**
   * Verify the bytes of a document found inside this one (a sealed plaintext): strict parse,
   * detection and verification one nesting level deeper. Never throws; past the nesting limit it
   * answers MALFORMED.
   */
  verifyNested(bytes: Uint8Array): Report;
}

/** What a format's {@link FormatModule.signedContent} is given. */
export interface SignedContentInput {
  /** The report format the document was filed under (e.g. `typed/proof.demand`). */
  format: string;
  /** The strictly parsed document. */
  tree: JsonNode;
  /** The same document as plain values; always an object here. */
  value: JsonObject;
  /** For the SHA-256 shown beside each content. */
  crypto: CryptoProvider;
}

/**
 * What a document says about itself, for the ledger's columns. Each is null when the document
 * does not say it, or says something no person would look up (see document-facts.ts).
 */
export interface DocumentFacts {
  /** The document's own id (e.g. `receipt.id`, `receipt_id`, `contract_id`). */
  receipt_id: string | null;
  /** When the document says it was issued, in ms since the epoch. */
  issued_at: number | null;
  /** The key id of the key the document says signed it (the issuer, the service). */
  issuer_key_id: string | null;
}

/** A signing key handed to an issuer: a private key file's contents. */
export interface IssueKey {
  key_id: string;
  algorithm: KeyAlgorithm;
  /** The 32-byte seed (Ed25519 secret seed, or the ML-DSA-65 key generation seed). */
  seed: Uint8Array;
  public_key: Uint8Array;
  label?: string;
}

/** A signing role other than the issuer's (the envelope's requester, the wearable's device). */
export interface IssueRole {
  /** The role's name, e.g. `device`; doors name their options after it (`--device-key`). */
  name: string;
  /** One line for people: what the role's key does. */
  help: string;
}

/** The caller's fields, parsed once: the text as given, its strict tree and plain values. */
export interface IssueFields {
  text: string;
  tree: JsonNode;
  value: JsonValue;
}

/** Everything an issuer is given: fields, keys, the instant and the clock, and crypto. */
export interface IssueInput {
  /** The issuer's name (e.g. `legacy-pq`). */
  name: string;
  fields: IssueFields;
  /** The issuer's key (always given to issuers with a {@link FormatIssuer.keyAlgorithm}). */
  key?: IssueKey;
  /** The key id to write for `key` (the key's own unless the caller chose another). */
  keyId?: string;
  /** The keys of the other roles the caller gave, by role name. */
  roles: Readonly<Partial<Record<string, IssueKey>>>;
  /** The secret of a format that encrypts instead of signing. */
  secret?: SecretEntry;
  /** The issuing instant the caller chose (a TS), if any. */
  issuedAt?: string;
  /** The clock: the issuing instant when the caller chose none. */
  now: Date;
  /** Signing, hashing and the randomness of new ids and IVs. */
  crypto: CryptoProvider;
  /** Verify a document with the given keys and secrets (for a wrapper's plaintext). */
  verify(text: string, keys: readonly KeyEntry[], secrets: readonly SecretEntry[]): Report;
}

/** An issued document and what verifies it. */
export interface IssuedDocument {
  /** The document, two-space indented, ending with a newline. */
  text: string;
  /** The public keys of the keys that signed it. */
  keys: KeyEntry[];
  /** The secrets that open it. */
  secrets: SecretEntry[];
}

/** One kind of document a format issues from caller fields (`evroom sign NAME`). */
export interface FormatIssuer {
  /** The name callers choose it by, e.g. `nano`. */
  readonly name: string;
  /**
   * What the caller's fields hold, for help: the first line beside the name, more lines under it.
   */
  readonly help: readonly string[];
  /** The issuer key's algorithm; undefined for a format that takes a secret instead of a key. */
  readonly keyAlgorithm?: KeyAlgorithm;
  /** Whether the key id written may be chosen by the caller (for a secret: which secret). */
  readonly keyId: boolean;
  /** Other roles that sign, each with an Ed25519 key. */
  readonly roles: readonly IssueRole[];
  /** Whether it takes a secret instead of a key. */
  readonly secret: boolean;
  /** Whether the caller may choose the issuing instant. */
  readonly issuedAt: boolean;
  /**
   * Whether every number must be one a double holds exactly. JCS signs doubles, so `1e400` or
   * a 20-digit integer would be signed as another number than the one written; formats that keep
   * number spellings (classical) or sign bytes (sealed) do not need this.
   */
  readonly exactNumbers: boolean;
  /**
   * Whether the document wraps another whose signatures need keys the issuer never saw: then only
   * the wrapper must open before it is handed out, rather than the whole document PASS.
   */
  readonly wraps: boolean;
  /**
   * Build and sign the document.
   *
   * Pure apart from the given crypto and clock. Throws IssueInputError (with a stable code and a
   * JSON Pointer into the fields) for fields it refuses; TypeError or RangeError from the
   * format's signer also mean the fields are wrong.
   */
  issue(input: IssueInput): IssuedDocument;
}

/** One document format: everything the program knows about it. */
export interface FormatModule {
  /** A short name for messages and tables, e.g. `classical`. */
  readonly name: string;
  /**
   * Whether a report format is one of this module's (the profile module owns `profile/nano`,
   * `profile/standard`, `profile/pq` and `legacy/proof_tier`).
   */
  owns(format: string): boolean;
  /**
   * Recognize a document by its shape, cheaply and without validating it.
   *
   * Reads the tree, so that documents whose verifier never needs plain values (classical
   * receipts) are not converted for detection alone.
   *
   * @param node - Any parsed document.
   * @returns The report format when the document is of this kind, else undefined.
   */
  detect(node: JsonNode): ReportFormat | undefined;
  /**
   * Verify a document this module recognized.
   *
   * Should not throw for any document; the entry point still turns an unexpected exception into
   * an `internal` error report.
   */
  verify(input: FormatInput): Report;
  /**
   * The exact bytes each signature covers, for auditors to see and recompute: one entry per
   * signed content, empty when nothing readable is signed. May throw for a document too broken
   * for its canonical form (the caller then shows nothing).
   */
  signedContent(input: SignedContentInput): SignedBytes[];
  /**
   * What the document says about itself, for the ledger. Pure, reads the tree only (a classical
   * receipt is never converted to plain values), and never throws, whatever the tree.
   */
  facts(tree: JsonNode): DocumentFacts;
  /** The kinds of document this format issues from caller fields, in the order people see. */
  readonly issuers: readonly FormatIssuer[];
  /**
   * Add this format's labelled samples (valid, tampered, forged, malformed, unsupported, ...)
   * and the keys that verify them. Deterministic: fixed seeds and instants, the kit's crypto.
   */
  samples(kit: SampleKit): void;
}
