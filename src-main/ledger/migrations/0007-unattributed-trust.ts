/**
 * Migration 7: `unattributed` trust (PROTOCOL section 1).
 *
 * Trust is judged only for a signature that verifies over the content present: a MISMATCH or
 * INVALID receipt whose document names a key is `unattributed`, never `trusted`, `unpinned`,
 * `revoked` or `expired`. This migration
 * - lets `receipts.trust` hold `unattributed`. Only the CHECK's list of values grows, which
 *   changes nothing stored on disk, so the table's recorded SQL is edited in place (SQLite's
 *   documented procedure for loosening a CHECK, "Making Other Kinds Of Table Schema Changes");
 *   the schema version is bumped so every connection re-reads it, and the file's integrity is
 *   checked before the step commits;
 * - re-judges receipts filed before it: a MISMATCH or INVALID row that carried a key's trust
 *   becomes `unattributed`, in its column and in its stored report, where the key id moves to
 *   `claimed_key_id`. The counts follow through the update trigger of migration 1.
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

const OLD_CHECK = `CHECK (trust IN ('trusted', 'unpinned', 'revoked', 'expired', 'not_applicable'))`;
const NEW_CHECK = `CHECK (trust IN ('trusted', 'unpinned', 'revoked', 'expired', 'unattributed', 'not_applicable'))`;

function up(database: WritableDB): void {
  const table = database.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'receipts'`).get() as
    { sql: string } | undefined;
  if (table === undefined || !table.sql.includes(OLD_CHECK)) {
    throw new Error('The receipts table does not carry the trust CHECK this migration expects.');
  }
  const version = database.pragma('schema_version', { simple: true }) as number;
  database.unsafeMode(true);
  try {
    database.pragma('writable_schema = ON');
    database
      .prepare(`UPDATE sqlite_schema SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'receipts'`)
      .run(OLD_CHECK, NEW_CHECK);
    database.pragma(`schema_version = ${version + 1}`);
  } finally {
    database.pragma('writable_schema = OFF');
    database.unsafeMode(false);
  }
  const integrity = database.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') throw new Error(`The ledger failed its integrity check: ${String(integrity)}`);
  database.exec(`
UPDATE receipts SET
  trust = 'unattributed',
  report_json = json_remove(
    json_set(report_json,
      '$.trust.status', 'unattributed',
      '$.trust.detail', 'The document names a key, but that key did not sign what is here.',
      '$.trust.claimed_key_id', coalesce(json_extract(report_json, '$.trust.key_id'), issuer_key_id)),
    '$.trust.key_id', '$.trust.label')
WHERE status IN ('MISMATCH', 'INVALID') AND trust <> 'not_applicable';
UPDATE receipts SET report_json = json_remove(report_json, '$.trust.claimed_key_id')
WHERE trust = 'unattributed' AND json_type(report_json, '$.trust.claimed_key_id') = 'null';
`);
}

export const unattributedTrustMigration: Migration = { version: 7, name: 'unattributed trust', up };
