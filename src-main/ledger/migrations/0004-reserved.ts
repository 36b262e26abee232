/**
 * Migration 4: reserved for the anchoring engine (branch wt-engine), which owns this number.
 *
 * This branch (wt-anchorview) needs migration 5 and the runner refuses a gap, so it carries this
 * empty step in its place. When the branches meet, the engine's migration 4 replaces this file
 * (and its line in index.ts); nothing here depends on what migration 4 does.
 */
import type { Migration } from './types';

export const reservedMigration: Migration = { version: 4, name: 'reserved for the anchoring engine', up: () => undefined };
