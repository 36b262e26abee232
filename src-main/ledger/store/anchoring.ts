/**
 * Anchor batches and their hashes; writes under the anchoring lease carry its fence.
 * Owned by h-anchor: the interface below and its two adapters (sqlite-anchoring.ts, pg-anchoring.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by h-anchor
export interface AnchoringStore {}
