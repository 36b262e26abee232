/**
 * The transparency logs part of the app API contract (issue 28; docs/logs.md): what a bundle's
 * log evidence proved (`LogCompleteness`), the logs the workstation has seen checkpoints of
 * (`LogView`, `LogDetail`), and the inputs of the `logs.*` methods with their validators.
 *
 * A log is one tenant's append-only Merkle log at a service (RFC 9162 hashing), named by the
 * origin line of its C2SP checkpoints. Everything here is plain JSON: hashes as lowercase hex,
 * instants as ms since the epoch, periods as the TS strings the bundle named.
 */
import { ApiInputError, objectInput, stringField } from './validate';

/** What a bundle's log evidence shows, as a whole. */
export const LOG_COMPLETENESS_STATUSES = ['complete', 'incomplete', 'invalid', 'absent'] as const;
/** One of {@link LOG_COMPLETENESS_STATUSES}. */
export type LogCompletenessStatus = (typeof LOG_COMPLETENESS_STATUSES)[number];

/** How the log key that signed a checkpoint is known: pinned in the trust store, only advertised, or not at all. */
export type LogSigner = 'pinned' | 'advertised' | 'unknown';

/** Whether a log's checkpoints agree with each other. */
export type LogConsistency = 'consistent' | 'unchecked' | 'split_view';

/** The completeness of one bundle's period in its tenant's log (`bundles.log_json`). */
export interface LogCompleteness {
  status: LogCompletenessStatus;
  /** The checkpoint's origin line, when one was read. */
  origin?: string;
  /** The note key name that signed it. */
  key_name?: string;
  tree_size?: number;
  root_hex?: string;
  signer: LogSigner;
  /** The period the bundle says it covers (TS strings; null for an open end). */
  period: { since: string | null; until: string | null };
  first_index: number | null;
  last_index: number | null;
  /** Missing leaf indices, the first 1,000 of them. */
  missing: number[];
  missing_count: number;
  /** The checkpoint does not cover every receipt in the bundle. */
  stale: boolean;
  /** How the checkpoint stands with every earlier one the workstation has seen of this log. */
  consistency?: LogConsistency;
  /** One sentence for people: `complete for … at size N`, or what is missing or wrong. */
  sentence: string;
}

/** One checkpoint the workstation has seen. */
export interface SeenCheckpointView {
  tree_size: number;
  root_hex: string;
  key_name: string;
  /** Where it was first seen: `bundle:<id>`, `api:<url>` or `context:<pack id>`. */
  source: string;
  first_seen_at: number;
  /** The signed note as it was seen. */
  note: string;
  /** Cosignature lines it carried (witnesses). */
  cosignatures: number;
  /**
   * The note key id (8 lowercase hex digits, as in a vkey) of the Ed25519 key that verified it
   * under `key_name`: checkpoints of one origin verified by different keys have different ids.
   */
  key_id: string;
  /** How that key is known to this workstation now. */
  signer: LogSigner;
}

/** One log the workstation has seen checkpoints of. */
export interface LogView {
  origin: string;
  key_name: string;
  /** Whether the log key (of `latest`) is pinned in the trust store. */
  signer: LogSigner;
  checkpoints: number;
  /**
   * How many Ed25519 keys verified its checkpoints (under its note key name). Checkpoints are
   * compared only with those of the same key; above 1, someone signed checkpoints of this origin
   * with another key (a key a bundle advertised, say) and `consistency` is judged for the pinned
   * key's checkpoints when one is pinned, else for each key's.
   */
  keys: number;
  latest: SeenCheckpointView;
  consistency: LogConsistency;
  /** The two checkpoints that disagree, when there is a split view. */
  split?: { size: number; root_hex: string; other_size: number; other_root_hex: string };
  /** Imported bundles with evidence from this log. */
  bundles: number;
}

/** A bundle's completeness, as the Logs view lists it. */
export interface LogBundleView {
  bundle_id: number;
  file_name: string | null;
  imported_at: number;
  log: LogCompleteness;
}

/** One log in full. */
export interface LogDetail extends LogView {
  /** Every checkpoint seen, largest tree first. */
  history: SeenCheckpointView[];
  bundles_detail: LogBundleView[];
}

/** The inputs of the logs methods. */
export interface LogsApiParams {
  'logs.list': undefined;
  'logs.detail': { origin: string };
}

/** The results of the logs methods. */
export interface LogsApiResults {
  /** Every log seen, split views first, then by origin. */
  'logs.list': LogView[];
  'logs.detail': LogDetail;
}

/** The longest origin line accepted. */
export const MAX_LOG_ORIGIN = 512;

/** The validators of the logs methods (contract-validators.ts adds them to APP_API). */
export const LOGS_API: { [M in keyof LogsApiParams]: (input: unknown) => LogsApiParams[M] } = {
  'logs.list': (input) => {
    objectInput(input, []);
    return undefined;
  },
  'logs.detail': (input) => {
    const source = objectInput(input, ['origin']);
    if (source.origin === undefined) throw new ApiInputError('origin is required: the log’s origin line', '/origin');
    const origin = stringField(source, 'origin', MAX_LOG_ORIGIN, 1);
    if (/[\s+]/u.test(origin)) throw new ApiInputError('origin must contain no spaces and no “+”', '/origin');
    // eslint-disable-next-line no-control-regex -- control characters are what this check refuses
    if (/[\u0000-\u001f\u007f]/.test(origin))
      throw new ApiInputError('origin must contain no control characters', '/origin');
    return { origin };
  },
};
