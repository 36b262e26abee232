/**
 * A tenant's receipts and log evidence for a period, read in one snapshot, for the evidence route and evroom export.
 * Owned by h-evidence: the interface below and its two adapters (sqlite-evidence.ts, pg-evidence.ts).
 */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by h-evidence
export interface EvidenceStore {}
