/**
 * Repository for the transparency-log checkpoints this workstation has seen (migration 13):
 * record a checkpoint, record a consistency result between two of one log, and read them back.
 *
 * Nothing here verifies anything: the operations layer (src-main/operations/log-checkpoints.ts)
 * checks signatures and proofs and records what it found. A log is named by its checkpoints'
 * origin line; its checkpoints are kept per (origin, log key, tree size, root), so two different
 * roots for one size (a split view) are both kept, and checkpoints verified by different keys are
 * kept apart (only those of one key are ever compared).
 */
import { checkHex64, checkInstant, checkInteger, checkOneOf, checkText } from './checks';
import { execute, queryAll, queryOne, type ReadableDB, type WritableDB } from './database';
import { sql } from './sql';

/** The longest origin line and note key name stored. */
export const MAX_SEEN_ORIGIN = 512;
/** The longest note stored (C2SP notes are small; a checkpoint with 100 signatures is far below). */
export const MAX_SEEN_NOTE = 1024 * 1024;
/** The longest source (`bundle:<id>`, `api:<url>`, `context:<pack id>`). */
export const MAX_SEEN_SOURCE = 2048;

/** A checkpoint as recorded. */
export interface SeenCheckpointRecord {
  id: number;
  origin: string;
  key_name: string;
  /** The Ed25519 public key that verified the note, lowercase hex. */
  log_key: string;
  tree_size: number;
  /** Lowercase hex. */
  root: string;
  note: string;
  cosignatures: number;
  source: string;
  first_seen_at: number;
}

/** A checkpoint to record. */
export interface NewSeenCheckpoint {
  origin: string;
  key_name: string;
  /** The Ed25519 public key that verified the note, lowercase hex. */
  log_key: string;
  tree_size: number;
  root: string;
  note: string;
  cosignatures: number;
  source: string;
  /** Default now. */
  seen_at?: number;
}

/** A consistency result between two checkpoints of one log. */
export interface ConsistencyResultRecord {
  origin: string;
  /** The log key (hex) of both checkpoints. */
  log_key: string;
  from_size: number;
  from_root: string;
  to_size: number;
  to_root: string;
  result: 'consistent' | 'inconsistent';
  source: string;
  checked_at: number;
}

/** A consistency result to record. */
export type NewConsistencyResult = Omit<ConsistencyResultRecord, 'checked_at'> & { checked_at?: number };

function checkOrigin(value: unknown, name: string): string {
  const text = checkText(value, name, MAX_SEEN_ORIGIN);
  if (/[\s+]/u.test(text)) throw new RangeError(`${name} must contain no spaces and no “+”`);
  return text;
}

/** An imported bundle with evidence from a log (its `bundles.log_json`, migration 12). */
export interface LogBundleRecord {
  id: number;
  file_name: string | null;
  imported_at: number;
  /** The bundle's LogCompleteness as the import wrote it (parsed JSON). */
  log: unknown;
}

/**
 * Records a seen checkpoint. Seen again (same origin, size and root), the first sighting's
 * source and time stay; its note is replaced only by one with more cosignature lines.
 *
 * @param database - A writable handle.
 * @param input - The checkpoint.
 * @returns The row as it now is, and whether this call added it.
 * @throws TypeError/RangeError for bad input (nothing written); LedgerError when SQLite fails.
 */
export function recordSeenCheckpointRow(
  database: WritableDB,
  input: NewSeenCheckpoint,
): { record: SeenCheckpointRecord; inserted: boolean } {
  const origin = checkOrigin(input.origin, 'origin');
  const keyName = checkOrigin(input.key_name, 'key_name');
  const logKey = checkHex64(input.log_key, 'log_key');
  const size = checkInteger(input.tree_size, 'tree_size');
  const root = checkHex64(input.root, 'root');
  const note = checkText(input.note, 'note', MAX_SEEN_NOTE);
  const cosignatures = checkInteger(input.cosignatures, 'cosignatures', 0, 1000);
  const source = checkText(input.source, 'source', MAX_SEEN_SOURCE);
  const seenAt = checkInstant(input.seen_at, 'seen_at');
  const inserted = execute(
    database,
    sql`INSERT INTO seen_checkpoints (origin, key_name, log_key, tree_size, root, note, cosignatures, source, first_seen_at)
        VALUES (${origin}, ${keyName}, ${logKey}, ${size}, ${root}, ${note}, ${cosignatures}, ${source}, ${seenAt})
        ON CONFLICT (origin, log_key, tree_size, root) DO NOTHING`,
  );
  if (inserted.changes === 0)
    execute(
      database,
      sql`UPDATE seen_checkpoints SET note = ${note}, cosignatures = ${cosignatures}
          WHERE origin = ${origin} AND log_key = ${logKey} AND tree_size = ${size} AND root = ${root}
            AND cosignatures < ${cosignatures}`,
    );
  const record = queryOne<SeenCheckpointRecord>(
    database,
    sql`SELECT * FROM seen_checkpoints
        WHERE origin = ${origin} AND log_key = ${logKey} AND tree_size = ${size} AND root = ${root}`,
  ) as SeenCheckpointRecord;
  return { record, inserted: inserted.changes === 1 };
}

/**
 * Every checkpoint seen of one log, the largest tree first (then the first seen first).
 *
 * @param database - A readable handle.
 * @param origin - The log's origin line.
 * @param logKey - Only those verified by this key (hex); every key's when omitted.
 */
export function listSeenCheckpoints(database: ReadableDB, origin: string, logKey?: string): SeenCheckpointRecord[] {
  checkOrigin(origin, 'origin');
  if (logKey === undefined)
    return queryAll<SeenCheckpointRecord>(
      database,
      sql`SELECT * FROM seen_checkpoints WHERE origin = ${origin} ORDER BY tree_size DESC, first_seen_at, id`,
    );
  const key = checkHex64(logKey, 'log_key');
  return queryAll<SeenCheckpointRecord>(
    database,
    sql`SELECT * FROM seen_checkpoints WHERE origin = ${origin} AND log_key = ${key}
        ORDER BY tree_size DESC, first_seen_at, id`,
  );
}

/** The origins of every log with a seen checkpoint, sorted. */
export function listSeenOrigins(database: ReadableDB): string[] {
  return queryAll<{ origin: string }>(database, sql`SELECT DISTINCT origin FROM seen_checkpoints ORDER BY origin`).map(
    (row) => row.origin,
  );
}

/**
 * Records what a consistency proof between two checkpoints of one log showed. A pair found
 * inconsistent stays inconsistent (a later proof that holds does not undo a failed one); a pair
 * found consistent becomes inconsistent when a later proof fails.
 *
 * @param database - A writable handle.
 * @param input - The pair and the result.
 * @returns The pair's result as it now is.
 * @throws TypeError/RangeError for bad input (nothing written); LedgerError when SQLite fails.
 */
export function recordConsistencyResult(database: WritableDB, input: NewConsistencyResult): ConsistencyResultRecord {
  const origin = checkOrigin(input.origin, 'origin');
  const logKey = checkHex64(input.log_key, 'log_key');
  const fromSize = checkInteger(input.from_size, 'from_size');
  const fromRoot = checkHex64(input.from_root, 'from_root');
  const toSize = checkInteger(input.to_size, 'to_size');
  const toRoot = checkHex64(input.to_root, 'to_root');
  if (toSize < fromSize) throw new RangeError('to_size must not be below from_size');
  const result = checkOneOf(input.result, ['consistent', 'inconsistent'] as const, 'result');
  const source = checkText(input.source, 'source', MAX_SEEN_SOURCE);
  const checkedAt = checkInstant(input.checked_at, 'checked_at');
  execute(
    database,
    sql`INSERT INTO seen_consistency (origin, log_key, from_size, from_root, to_size, to_root, result, source, checked_at)
        VALUES (${origin}, ${logKey}, ${fromSize}, ${fromRoot}, ${toSize}, ${toRoot}, ${result}, ${source}, ${checkedAt})
        ON CONFLICT (origin, log_key, from_size, from_root, to_size, to_root) DO UPDATE
        SET result = excluded.result, source = excluded.source, checked_at = excluded.checked_at
        WHERE seen_consistency.result = 'consistent' AND excluded.result = 'inconsistent'`,
  );
  return queryOne<ConsistencyResultRecord>(
    database,
    sql`SELECT origin, log_key, from_size, from_root, to_size, to_root, result, source, checked_at FROM seen_consistency
        WHERE origin = ${origin} AND log_key = ${logKey} AND from_size = ${fromSize} AND from_root = ${fromRoot}
          AND to_size = ${toSize} AND to_root = ${toRoot}`,
  ) as ConsistencyResultRecord;
}

/**
 * Every consistency result recorded for one log, smallest pair first.
 *
 * @param database - A readable handle.
 * @param origin - The log's origin line.
 * @param logKey - Only those between checkpoints of this key (hex); every key's when omitted.
 */
export function listConsistencyResults(
  database: ReadableDB,
  origin: string,
  logKey?: string,
): ConsistencyResultRecord[] {
  checkOrigin(origin, 'origin');
  if (logKey === undefined)
    return queryAll<ConsistencyResultRecord>(
      database,
      sql`SELECT origin, log_key, from_size, from_root, to_size, to_root, result, source, checked_at
          FROM seen_consistency WHERE origin = ${origin} ORDER BY from_size, to_size, id`,
    );
  const key = checkHex64(logKey, 'log_key');
  return queryAll<ConsistencyResultRecord>(
    database,
    sql`SELECT origin, log_key, from_size, from_root, to_size, to_root, result, source, checked_at
        FROM seen_consistency WHERE origin = ${origin} AND log_key = ${key} ORDER BY from_size, to_size, id`,
  );
}

/**
 * The imported bundles whose log evidence is from one log (by the origin its `bundles.log_json`
 * names), the latest import first.
 *
 * @param database - A readable handle.
 * @param origin - The log's origin line.
 */
export function listBundlesOfLog(database: ReadableDB, origin: string): LogBundleRecord[] {
  checkOrigin(origin, 'origin');
  return queryAll<{ id: number; file_name: string | null; imported_at: number; log_json: string }>(
    database,
    sql`SELECT id, file_name, imported_at, log_json FROM bundles
        WHERE log_json IS NOT NULL AND json_extract(log_json, '$.origin') = ${origin}
        ORDER BY imported_at DESC, id DESC`,
  ).map((row) => ({
    id: row.id,
    file_name: row.file_name,
    imported_at: row.imported_at,
    log: JSON.parse(row.log_json) as unknown,
  }));
}
