/**
 * What people call each format the verifier names in its reports (`typed-pq`, `countersigner`,
 * `profile/nano`, ...), and the one fact about a format the receipt views need beyond its report:
 * that the `issued_at` it states is not covered by its signature (said only where the format's
 * verifier reports it so: typed-pq and sigr-chain-pq). The names follow the section
 * titles of docs/protocol.md.
 */

/** A format as the views describe it. */
export interface FormatDescription {
  /** A human name, e.g. "Typed post-quantum attestation (afir.attestation)". */
  label: string;
  /** True when the format states an issue time its signature does not cover. */
  issuedAtUnsigned?: true;
}

/** Formats named exactly, then families named by a prefix (`profile/nano`, `typed/refund`). */
const EXACT: Record<string, FormatDescription> = {
  classical: { label: 'Classical receipt' },
  countersigner: { label: 'Countersigner record' },
  sealed: { label: 'Sealed document' },
  'typed-pq': { label: 'Typed post-quantum attestation (afir.attestation)', issuedAtUnsigned: true },
  'sigr-chain-pq': { label: 'SiGR chain receipt', issuedAtUnsigned: true },
  hahs: { label: 'HAHS receipt' },
  'smsh-stamp': { label: 'SMSH-Stamp v1' },
  spectral: { label: 'Spectral receipt' },
  report: { label: 'Audit report' },
  'legacy/proof_tier': { label: 'Profile receipt (legacy proof tier)' },
};

const PREFIXES: [string, FormatDescription][] = [
  ['envelope/', { label: 'General envelope' }],
  ['wearable/', { label: 'Wearable measurement receipt' }],
  ['profile/', { label: 'Profile receipt' }],
  ['typed/', { label: 'Typed contract' }],
];

/**
 * Describes a format by the name a report gives it.
 *
 * @param format - The report's `format`, e.g. `typed-pq` or `profile/nano`.
 * @returns its description, or `undefined` for a name this app does not know (e.g. `unknown`).
 */
export function describeFormat(format: string): FormatDescription | undefined {
  return EXACT[format] ?? PREFIXES.find(([prefix]) => format.startsWith(prefix))?.[1];
}
