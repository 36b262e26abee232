/**
 * How bundle data looks in the views: signature badges, finding words and groups, refusal
 * advice. The data itself arrives typed from the app API (the door reads the stored JSON once).
 */
import type { ReactNode } from 'react';
import type { BundleFinding, BundleSignature } from '../../src-shared/api/contract';
import { TrustBadge } from './status';

const SIGNATURE: Record<string, { icon: string; tone: string; label: string; meaning: string }> = {
  valid: { icon: '✓', tone: 'good', label: 'signature valid', meaning: 'manifest.sig verifies over this manifest' },
  invalid: {
    icon: '✗',
    tone: 'bad',
    label: 'signature invalid',
    meaning: 'manifest.sig does not verify: the manifest or the signature was altered',
  },
  mismatch: {
    icon: '≠',
    tone: 'bad',
    label: 'digest mismatch',
    meaning: 'manifest.sig names another manifest than the one in the zip',
  },
  malformed: {
    icon: '⚠',
    tone: 'bad',
    label: 'signature malformed',
    meaning: 'manifest.sig is not a well-formed signature file',
  },
  unavailable: {
    icon: '?',
    tone: 'warn',
    label: 'not checked: no key',
    meaning: 'no key for the signer was found, so the signature could not be checked',
  },
  unsupported: {
    icon: '⊘',
    tone: 'other',
    label: 'not checked: unsupported',
    meaning: 'the signature uses an algorithm this program does not check',
  },
  missing: { icon: '–', tone: 'warn', label: 'unsigned', meaning: 'the bundle has no manifest.sig' },
};

/** How a signature status looks: icon, tone and words. Unknown statuses are never green. */
export function signatureStyle(status: string): { icon: string; tone: string; label: string; meaning: string } {
  return (
    SIGNATURE[status] ?? {
      icon: '?',
      tone: 'warn',
      label: `signature ${status}`,
      meaning: 'a signature result this version does not know',
    }
  );
}

/** The manifest signature result: an icon and words, never colour alone. */
export function SignatureBadge({ status, large = false }: { status: string; large?: boolean }) {
  const style = signatureStyle(status);
  return (
    <span
      className={`badge badge-${style.tone}${large ? ' badge-large' : ''}`}
      title={style.meaning}
      data-signature={status}
    >
      <span aria-hidden="true" className="badge-icon">
        {style.icon}
      </span>
      {style.label}
    </span>
  );
}

/**
 * Signature result and signer trust side by side (never merged): "signature valid" and
 * "unpinned" are two separate facts.
 */
export function SignatureWithTrust({ signature }: { signature: BundleSignature | undefined }): ReactNode {
  if (!signature) return <span className="muted">not recorded</span>;
  return (
    <span className="bundle-signature-pair">
      <SignatureBadge status={signature.status} />
      {signature.keyId !== undefined && <TrustBadge trust={signature.trust} />}
    </span>
  );
}

const FINDING_WORDS: Record<string, string> = {
  file_missing: 'listed in the manifest, missing from the zip',
  file_extra: 'in the zip, not listed in the manifest',
  file_mismatch: 'bytes differ from the manifest',
  unexpected_file: 'not part of the bundle layout',
  count_mismatch: 'declared count disagrees',
  manifest_signature_missing: 'manifest.sig missing',
  manifest_signature_malformed: 'manifest.sig malformed',
  manifest_signature_mismatch: 'manifest.sig names another manifest',
  manifest_signature_unavailable: 'no key to check manifest.sig',
  manifest_signature_unsupported: 'manifest.sig algorithm unsupported',
  manifest_signature_invalid: 'manifest.sig does not verify',
  manifest_key_mismatch: 'signer differs from manifest key_id',
  keys_invalid: 'key file unusable',
  anchors_invalid: 'anchors file unusable',
  receipt_not_pass: 'receipt did not verify PASS',
  receipt_name_mismatch: 'file name is not the receipt id',
  log_checkpoint_invalid: 'log checkpoint does not verify',
  log_key_unknown: 'no known key signed the log checkpoint',
  log_evidence_invalid: 'log evidence unusable',
  log_proof_invalid: 'inclusion proof does not verify',
  log_leaf_missing: 'log leaf missing from the period',
  log_leaf_duplicate: 'log leaf given twice',
  log_leaf_order: 'log leaves out of order',
  log_receipt_unlogged: 'receipt not in the log',
  log_boundary_invalid: 'period edge not where the bundle says',
  log_checkpoint_stale: 'log checkpoint older than the receipts',
  log_split_view: 'split view: checkpoints of the log disagree',
};

/** A finding code in words. */
export function findingWords(code: string): string {
  return FINDING_WORDS[code] ?? code.replace(/_/g, ' ');
}

/** The groups findings are shown in, in order; a finding's group is the first that takes its code. */
export const FINDING_GROUPS: { id: string; title: string; description: string; codes: readonly string[] }[] = [
  {
    id: 'missing',
    title: 'Missing files',
    description: 'The manifest lists these files but the zip does not have them.',
    codes: ['file_missing'],
  },
  {
    id: 'extra',
    title: 'Extra files',
    description:
      'The zip has these files but the manifest does not list them, or they are not part of the bundle layout.',
    codes: ['file_extra', 'unexpected_file'],
  },
  {
    id: 'mismatch',
    title: 'Mismatching files',
    description:
      'These files differ from what the manifest says (size or SHA-256): altered after the manifest was made?',
    codes: ['file_mismatch'],
  },
  {
    id: 'not-pass',
    title: 'Receipts not PASS',
    description: 'These receipts were stored, but their verification status is not PASS.',
    codes: ['receipt_not_pass'],
  },
  {
    id: 'signature',
    title: 'Manifest signature',
    description: 'Problems with manifest.sig. The receipts inside were still verified one by one.',
    codes: [
      'manifest_signature_missing',
      'manifest_signature_malformed',
      'manifest_signature_mismatch',
      'manifest_signature_unavailable',
      'manifest_signature_unsupported',
      'manifest_signature_invalid',
      'manifest_key_mismatch',
    ],
  },
  {
    id: 'log',
    title: 'Log completeness',
    description:
      'Problems with the log evidence (log/checkpoint.txt and log/proofs.json): what they say about whether receipts were left out, and whether the log kept one history.',
    codes: [
      'log_split_view',
      'log_leaf_missing',
      'log_receipt_unlogged',
      'log_leaf_duplicate',
      'log_leaf_order',
      'log_boundary_invalid',
      'log_checkpoint_stale',
      'log_proof_invalid',
      'log_checkpoint_invalid',
      'log_key_unknown',
      'log_evidence_invalid',
    ],
  },
  {
    id: 'other',
    title: 'Other findings',
    description: 'Key and anchor files, declared counts and receipt file names.',
    codes: [],
  },
];

/** Findings grouped as {@link FINDING_GROUPS} says; empty groups are left out. */
export function groupFindings(
  findings: readonly BundleFinding[],
): { id: string; title: string; description: string; findings: BundleFinding[] }[] {
  const groups = FINDING_GROUPS.map((group) => ({
    id: group.id,
    title: group.title,
    description: group.description,
    findings: [] as BundleFinding[],
  }));
  for (const finding of findings) {
    const index = FINDING_GROUPS.findIndex((group) => group.codes.includes(finding.code));
    const group = groups[index === -1 ? groups.length - 1 : index];
    group?.findings.push(finding);
  }
  return groups.filter((group) => group.findings.length > 0);
}

const REFUSALS: Record<string, { words: string; advice: string }> = {
  zip_unreadable: {
    words: 'the file is not a readable zip',
    advice: 'Check that the file is the evidence bundle itself and that it downloaded completely.',
  },
  zip_corrupt: {
    words: 'the zip is damaged',
    advice: 'Download or export the bundle again; the file was probably cut short or altered.',
  },
  zip_path_absolute: {
    words: 'an entry has an absolute path',
    advice:
      'An entry tries to write outside the bundle folder. Do not extract this zip with other tools; ask the sender for a clean export.',
  },
  zip_path_drive: {
    words: 'an entry names a drive letter',
    advice: 'An entry tries to write outside the bundle folder. Ask the sender for a clean export.',
  },
  zip_path_traversal: {
    words: 'an entry climbs out of the bundle with “..”',
    advice:
      'This is a path-traversal zip: an entry tries to write outside the bundle folder. Do not extract it with other tools; ask the sender for a clean export.',
  },
  zip_path_backslash: {
    words: 'an entry name has a backslash',
    advice: 'Bundles use “/” between folders. Ask the sender for a clean export.',
  },
  zip_path_control: {
    words: 'an entry name has control characters',
    advice: 'Names with control characters can hide what a file is. Ask the sender for a clean export.',
  },
  zip_path_invalid: { words: 'an entry name is unusable', advice: 'Ask the sender for a clean export.' },
  zip_symlink: {
    words: 'an entry is a symbolic link',
    advice:
      'Links can point anywhere on your disk, so bundles may not contain them. Ask the sender for a clean export.',
  },
  zip_special_file: {
    words: 'an entry is a device, pipe or socket',
    advice: 'Bundles hold ordinary files only. Ask the sender for a clean export.',
  },
  zip_directory_invalid: {
    words: 'a directory entry is not a real directory',
    advice: 'Ask the sender for a clean export.',
  },
  zip_duplicate_name: {
    words: 'two entries have the same name',
    advice: 'Which copy counts would be ambiguous. Ask the sender for a clean export.',
  },
  zip_path_conflict: {
    words: 'a name is used both as a file and as a folder',
    advice: 'Ask the sender for a clean export.',
  },
  zip_encrypted: {
    words: 'an entry is encrypted',
    advice: 'Evidence bundles are not encrypted at the zip level. Ask the sender for the plain export.',
  },
  zip_unsupported_compression: {
    words: 'an entry uses an unsupported compression method',
    advice: 'Only stored and deflate entries are read. Ask the sender to export with a standard zip writer.',
  },
  zip_too_many_entries: {
    words: 'the zip has more entries than the limit',
    advice: 'If the bundle is genuine, raise the entry limit in Settings and import it again.',
  },
  zip_entry_too_large: {
    words: 'an entry is larger than the limit',
    advice: 'If the bundle is genuine, raise the size limit in Settings and import it again.',
  },
  zip_file_too_large: {
    words: 'the file is larger than any bundle within the limits',
    advice: 'If the bundle is genuine, raise the size limit in Settings and import it again.',
  },
  zip_too_large: {
    words: 'the zip inflates to more bytes than the limit',
    advice: 'If the bundle is genuine, raise the size limit in Settings and import it again.',
  },
  zip_ratio_exceeded: {
    words: 'the zip inflates suspiciously much (a zip bomb?)',
    advice: 'If the bundle is genuine, raise the compression-ratio limit in Settings and import it again.',
  },
  zip_size_mismatch: {
    words: 'an entry is not the size its header says',
    advice: 'The zip was altered or damaged. Ask the sender for a clean export.',
  },
  zip_crc_mismatch: {
    words: 'an entry fails its CRC-32 check',
    advice: 'The zip was altered or damaged. Download or export it again.',
  },
  zip_changed: {
    words: 'the file changed while it was being imported',
    advice: 'Import it again once nothing else is writing to it.',
  },
  manifest_missing: {
    words: 'there is no manifest.json',
    advice: 'Without the manifest nothing in the zip can be checked. Is this an evidence bundle?',
  },
  manifest_invalid: {
    words: 'manifest.json is not a valid manifest',
    advice: 'The message above points at the problem. Ask the sender for a clean export.',
  },
  manifest_unsupported_format: {
    words: 'the bundle format is not one this version reads',
    advice: 'Update Evidence Room, or ask the sender for an evroom.evidence/1 bundle.',
  },
};

/**
 * What a failed import's code means.
 *
 * @returns `refused: true` for refusals decided before anything was written (zip and manifest
 *   checks); other failures stopped part-way and may have left a partial bundle
 */
export function refusalReason(code: string): { refused: boolean; words: string; advice: string } {
  const known = REFUSALS[code];
  if (known) return { refused: true, ...known };
  if (code.startsWith('zip_') || code.startsWith('manifest_'))
    return { refused: true, words: code.replace(/_/g, ' '), advice: 'Ask the sender for a clean export.' };
  return {
    refused: false,
    words: 'the import stopped part-way',
    advice:
      'Receipts stored before the failure are kept and the bundle is marked partial; importing the same zip again finishes it.',
  };
}
