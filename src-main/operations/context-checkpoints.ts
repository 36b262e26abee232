/**
 * Log checkpoints in context packs (issue 28 with issue 29; docs/logs.md, "Air-gapped
 * workstations"): the online workstation packs every transparency-log checkpoint it has seen,
 * each with the log key that verified it there (kept with it when it was seen), and the air-gapped workstation records them as
 * seen, so its split-view check covers what the online machine saw.
 *
 * The pack's maker is trusted for nothing the workstation can check: each note must verify with
 * the key carried beside it, its checkpoint must be the origin the entry names, and whether that
 * key is pinned is the workstation's own trust store's answer (the Logs view says so).
 */
import { b64uDecode, b64uEncode, hexDecode } from '../../src-shared/crypto';
import { parseCheckpoint, parseNote, type Note } from '../../src-shared/crypto/signed-note';
import type { ContextCheckpointEntry, OpenedContextPack } from '../anchor/context-pack';
import { listSeenCheckpoints, listSeenOrigins } from '../ledger';
import { OperationError } from './errors';
import { noteSignedBy, recordSeenCheckpoint } from './log-checkpoints';
import type { Workspace } from './workspace';

/**
 * Every checkpoint the workstation has seen, each with the Ed25519 key that verified it when it
 * was seen (a seen checkpoint is recorded only with its key).
 *
 * @param workspace - The open workspace.
 * @returns The entries to pack.
 */
export function seenCheckpointsForPack(workspace: Workspace): ContextCheckpointEntry[] {
  const database = workspace.ledger.readable;
  return listSeenOrigins(database).flatMap((origin) =>
    listSeenCheckpoints(database, origin).map((seen) => ({
      origin,
      key_name: seen.key_name,
      note: seen.note,
      public_key: b64uEncode(hexDecode(seen.log_key)),
    })),
  );
}

/**
 * Records the checkpoints a pack carries as seen (source `context:<pack id>`), after checking
 * every one of them: a note that does not verify with its key, or is not the checkpoint of the
 * origin it is filed under, refuses them all (nothing recorded).
 *
 * @param workspace - The open workspace.
 * @param pack - The opened pack, already checked whole.
 * @returns How many were recorded and how many of them disagree with a checkpoint seen before.
 * @throws OperationError `context_pack_refused` (invalid_input) naming the entry that does not hold.
 */
export function recordPackCheckpoints(
  workspace: Workspace,
  pack: OpenedContextPack,
): { recorded: number; split_views: number } {
  const checked = pack.checkpoints.map((entry, index) => {
    const refuse = (why: string): never => {
      throw new OperationError(
        'invalid_input',
        'context_pack_refused',
        `The pack's log checkpoint ${index} (${entry.origin.slice(0, 120)}) ${why}`,
      );
    };
    let note: Note;
    let checkpoint: ReturnType<typeof parseCheckpoint>;
    try {
      note = parseNote(entry.note);
      checkpoint = parseCheckpoint(note.text);
    } catch (error) {
      return refuse(`is not a signed checkpoint: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (checkpoint.origin !== entry.origin)
      refuse(`is filed under another origin than its own (${checkpoint.origin}).`);
    if (!noteSignedBy(workspace.crypto, note, entry.key_name, b64uDecode(entry.public_key)))
      refuse(`does not verify with the log key carried beside it, as ${entry.key_name}.`);
    return { entry, checkpoint };
  });
  let splitViews = 0;
  for (const { entry, checkpoint } of checked) {
    const outcome = recordSeenCheckpoint(workspace, {
      note: entry.note,
      origin: entry.origin,
      key_name: entry.key_name,
      log_key: b64uDecode(entry.public_key),
      size: checkpoint.size,
      root: checkpoint.rootHash,
      source: `context:${pack.pack_id}`,
    });
    if (outcome.consistency === 'split_view') splitViews += 1;
  }
  return { recorded: checked.length, split_views: splitViews };
}
