/**
 * The labelled samples (every format: valid, tampered, forged, malformed, unsupported) loaded
 * into the ledger as demo data.
 *
 * Their signers' keys are recorded as advertised: they verify, and confer no trust.
 */
import { appendAudit } from '../ledger';
import { buildSamples } from './samples';
import { saveVerified, verifyBytes } from './verify';
import { workspaceVerifyContext, type Workspace } from './workspace';

/**
 * Verifies every sample and stores it, with one audit row.
 *
 * @returns How many documents there are and how many were new to the ledger.
 */
export function loadSamples(workspace: Workspace): { documents: number; created: number } {
  const set = buildSamples();
  workspace.trust.recordAdvertised(set.keys, 'samples');
  const context = workspaceVerifyContext(workspace, { secrets: set.secrets });
  const documents = set.files.map((sample) => {
    const bytes = new TextEncoder().encode(sample.text);
    return {
      bytes,
      facts: verifyBytes(bytes, context),
      source: { kind: 'file' as const, ref: `samples/${sample.file}` },
    };
  });
  const rows = workspace.ledger.runInTransaction((database) => {
    const saved = saveVerified(workspace, documents);
    appendAudit(database, 'import', 'built-in samples', {
      receipts: saved.length,
      new: saved.filter((row) => row.created).length,
    });
    return saved;
  });
  return { documents: documents.length, created: rows.filter((row) => row.created).length };
}
