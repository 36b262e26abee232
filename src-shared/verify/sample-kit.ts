/**
 * What every format's samples are made with: the sample set, the kit each format adds to, and
 * the edits that break a valid document on purpose.
 *
 * Everything here is deterministic: seeds are fixed bytes, instants are constants, and the kit's
 * crypto provider is one that never asks for randomness (src-main/operations/samples.ts). Every
 * seed is public; the sample keys prove nothing outside the samples.
 */
import { hexEncode, utf8Encode } from '../crypto';
import type { CryptoProvider } from '../crypto/provider';
import type { JsonValue } from '../json/types';
import type { KeyEntry, SecretEntry } from './context';
import type { JsonObject } from './fields';
import { formatJsonDocument } from './json-document';
import type { ReportFormat, ReportStatus, TrustStatus } from './report';

/** One sample document and what verifying it must give. */
export interface SampleFile {
  /** Path under the output folder, with `/` separators, e.g. `classical/valid.json`. */
  file: string;
  format: ReportFormat;
  expected_status: ReportStatus;
  /** The trust with keys.json pinned (`evroom verify --trust keys.json`). */
  expected_trust: TrustStatus;
  /** What the sample shows, for people. */
  note: string;
  /** The file's contents. */
  text: string;
}

/** Every sample with the keys and secrets that verify them. */
export interface SampleSet {
  files: SampleFile[];
  /** The public keys of every sample signer (keys.json). */
  keys: KeyEntry[];
  /** The sealed samples' secret (secrets.json). */
  secrets: SecretEntry[];
}

/** The instant the samples without a worked example are issued at. */
export const SAMPLES_NOW = '2026-06-01T12:00:00.000Z';

/** The id of the sealed samples' secret. */
export const SAMPLES_SECRET_ID = 'evroom-samples/sealed';

/** The seed byte of the forger: a key in no key file, whose signatures are the `forged` samples'. */
export const FORGER_SEED_BYTE = 0xee;

/** What a format's `samples` adds to. */
export interface SampleKit {
  /** Deterministic: signing is, and asking it for randomness throws. */
  readonly crypto: CryptoProvider;
  /**
   * Add a sample, written as two-space indented JSON (number spellings of JSON text kept).
   *
   * @param file - Its path, e.g. `classical/valid.json`.
   * @param format - The format verifying it must report.
   * @param status - The status verifying it must give.
   * @param trust - The trust with keys.json pinned.
   * @param note - What it shows, for people.
   * @param document - JSON text or plain values.
   */
  add(
    file: string,
    format: ReportFormat,
    status: ReportStatus,
    trust: TrustStatus,
    note: string,
    document: string | JsonValue,
  ): void;
  /** Add a sample whose text is written exactly as given (a document strict parsing refuses). */
  addFile(sample: SampleFile): void;
  /** Add the public key of a sample signer (keys.json). */
  addKey(entry: KeyEntry): void;
  /** Add a secret that opens sealed samples (secrets.json). */
  addSecret(secret: SecretEntry): void;
  /**
   * The text of a sample added earlier (a sealed sample wraps another format's).
   *
   * @throws Error when there is none.
   */
  text(file: string): string;
}

/**
 * A kit that adds to a sample set.
 *
 * @param set - The set to fill.
 * @param crypto - The deterministic provider.
 * @returns The kit.
 */
export function createSampleKit(set: SampleSet, crypto: CryptoProvider): SampleKit {
  return {
    crypto,
    add(file, format, status, trust, note, document) {
      set.files.push({
        file,
        format,
        expected_status: status,
        expected_trust: trust,
        note,
        text: formatJsonDocument(document),
      });
    },
    addFile(sample) {
      set.files.push({ ...sample });
    },
    addKey(entry) {
      set.keys.push(entry);
    },
    addSecret(secret) {
      set.secrets.push(secret);
    },
    text(file) {
      const found = set.files.find((sample) => sample.file === file);
      if (found === undefined) throw new Error(`the samples need ${file}, which was not made before`);
      return found.text;
    },
  };
}

/**
 * A fixed 32-byte seed.
 *
 * @param byte - Every byte of it.
 * @returns The seed.
 */
export function sampleSeed(byte: number): Uint8Array {
  return new Uint8Array(32).fill(byte);
}

/**
 * hex SHA-256 of a text, for sample digests of things that do not exist.
 *
 * @param crypto - The provider.
 * @param text - The text.
 * @returns 64 lowercase hex characters.
 */
export function sampleHash(crypto: CryptoProvider, text: string): string {
  return hexEncode(crypto.sha256(utf8Encode(text)));
}

/**
 * The public key entry of a sample Ed25519 signer.
 *
 * @param crypto - The provider.
 * @param keyId - The signer's key id.
 * @param seed - Its seed.
 * @param label - Who it is; written as `Sample key: <label>`.
 * @returns The key entry.
 */
export function sampleEd25519Key(crypto: CryptoProvider, keyId: string, seed: Uint8Array, label: string): KeyEntry {
  return {
    key_id: keyId,
    algorithm: 'Ed25519',
    public_key: crypto.ed25519PublicKey(seed),
    label: `Sample key: ${label}`,
  };
}

/**
 * A text edit that must change something: a sample that silently equals its original is a bug.
 *
 * @param text - The original.
 * @param from - What to replace (its first occurrence).
 * @param to - The replacement.
 * @returns The edited text.
 * @throws Error when `from` does not occur.
 */
export function replaced(text: string, from: string, to: string): string {
  const result = text.replace(from, to);
  if (result === text) throw new Error(`sample edit found nothing to replace: ${from}`);
  return result;
}

/**
 * A deep copy of a document with a change applied.
 *
 * @param document - The original.
 * @param change - Changes the copy.
 * @returns The copy.
 */
export function edited(document: JsonValue, change: (copy: JsonObject) => void): JsonObject {
  const copy = JSON.parse(JSON.stringify(document)) as JsonObject;
  change(copy);
  return copy;
}

/**
 * An object member of a sample document, for edits (the samples know their own shapes).
 *
 * @param object - The document or a part of it.
 * @param name - The member.
 * @returns The member as an object.
 */
export function sampleMember(object: JsonValue | undefined, name: string): JsonObject {
  return (object as JsonObject)[name] as JsonObject;
}
