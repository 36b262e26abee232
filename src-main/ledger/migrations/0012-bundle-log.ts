/**
 * Migration 12: what an imported bundle's log evidence showed (issue 28; docs/logs.md).
 *
 * `bundles.log_json`: the bundle's `LogCompleteness` (src-shared/api/logs-contract.ts) as JSON
 * text, written by the import; NULL for a bundle without log files (and for every bundle
 * imported before this migration, whose log files, if any, were not read).
 */
import type { WritableDB } from '../database';
import type { Migration } from './types';

function up(database: WritableDB): void {
  database.exec(`ALTER TABLE bundles ADD COLUMN log_json TEXT CHECK (log_json IS NULL OR json_valid(log_json));`);
}

export const bundleLogMigration: Migration = { version: 12, name: 'bundle log', up };
