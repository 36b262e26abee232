/**
 * The path rules every zip entry name of a bundle must follow, and the duplicate check.
 *
 * The isomorphic copy of the name rules of src-main/evidence/zip-hygiene.ts (`checkEntryName`,
 * `foldEntryName`, `EntryNames`): the browser reference verifier reads zips with jszip rather
 * than yauzl, and must refuse the same names. The rules:
 * - refused in names: a leading `/` (absolute), a drive letter (`C:`), `..` segments, `.` and
 *   empty segments, backslashes, C0 and C1 control characters (NUL included) and DEL, and more
 *   than {@link MAX_NAME_BYTES} bytes. A `:` elsewhere is allowed: anchors/<batch_id>.json
 *   names hold one, and nothing here is ever extracted to a file system.
 * - duplicates are refused exactly and after folding: each segment in Unicode NFC, lower case,
 *   without trailing dots and spaces (the names Windows and macOS treat as one file). A file
 *   whose folded name is also a folded directory of another entry is refused too.
 */
import { utf8Length } from '../crypto';
import { BundleError, printableName, type BundleErrorCode } from './errors';

/** The longest entry name accepted, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 1024;

/** A checked entry name and whether it names a directory. */
export interface NamedEntry {
  /** The decoded name (directories keep their trailing `/`). */
  name: string;
  directory: boolean;
}

function entryError(code: BundleErrorCode, name: string, message: (shown: string) => string): BundleError {
  const shown = printableName(name);
  return new BundleError(code, message(shown), { entry: shown });
}

/**
 * Check an entry name against the path rules (see the module comment).
 *
 * @param name - The decoded name; a directory's name ends with `/`.
 * @throws TypeError if `name` is not a string.
 * @throws BundleError zip_path_invalid, zip_path_control, zip_path_backslash, zip_path_absolute,
 *   zip_path_drive, zip_path_traversal.
 * @example checkEntryName('receipts/r1.json') // passes; checkEntryName('../x') throws
 */
export function checkEntryName(name: string): void {
  if (typeof name !== 'string') throw new TypeError('checkEntryName expects a string');
  const refuse = (code: BundleErrorCode, why: string): never => {
    throw entryError(code, name, (shown) => `Entry "${shown}": ${why}`);
  };
  if (name.length === 0) refuse('zip_path_invalid', 'the name is empty.');
  if (utf8Length(name) > MAX_NAME_BYTES) refuse('zip_path_invalid', `the name is longer than ${MAX_NAME_BYTES} bytes.`);
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) refuse('zip_path_control', 'the name contains a control character.');
  if (name.includes('\\'))
    refuse('zip_path_backslash', 'the name contains a backslash, which some tools read as a separator.');
  if (name.startsWith('/')) refuse('zip_path_absolute', 'the name is an absolute path.');
  if (/^[A-Za-z]:/.test(name)) refuse('zip_path_drive', 'the name starts with a drive letter.');
  const segments = name.split('/');
  // A directory's trailing `/` leaves one empty last segment, which is fine.
  if (name.endsWith('/')) segments.pop();
  for (const segment of segments) {
    if (segment === '..') refuse('zip_path_traversal', 'the name has a ".." segment that leads outside the bundle.');
  }
  for (const segment of segments) {
    if (segment === '' || segment === '.') refuse('zip_path_invalid', 'the name has an empty or "." segment.');
  }
}

/**
 * The form two names are compared in for duplicates: NFC, lower case, and without the trailing
 * dots and spaces Windows drops, segment by segment; a directory's trailing `/` is dropped.
 *
 * @param name - A checked entry name.
 * @returns The folded name.
 * @throws TypeError if `name` is not a string.
 */
export function foldEntryName(name: string): string {
  if (typeof name !== 'string') throw new TypeError('foldEntryName expects a string');
  const bare = name.endsWith('/') ? name.slice(0, -1) : name;
  // NFC of the whole name is NFC of each segment: "/" combines with nothing.
  const normalized = /^[\x20-\x7e]*$/.test(bare) ? bare : bare.normalize('NFC');
  return normalized.toLowerCase().replace(/[. ]+(?=\/|$)/gu, '');
}

function conflict(file: string, other: string): BundleError {
  return new BundleError(
    'zip_path_conflict',
    `Entry "${printableName(file)}" is a file, but entry "${printableName(other)}" uses that name as a directory.`,
    { entry: printableName(file) },
  );
}

/**
 * The names seen so far, to refuse duplicates and file/directory conflicts.
 */
export class EntryNames {
  private readonly names = new Map<string, string>();
  private readonly files = new Map<string, string>();
  private readonly directories = new Map<string, string>();

  /**
   * Record a checked name.
   *
   * @param entry - The checked entry.
   * @throws BundleError zip_duplicate_name or zip_path_conflict.
   */
  add(entry: NamedEntry): void {
    const folded = foldEntryName(entry.name);
    const earlier = this.names.get(folded);
    if (earlier !== undefined) {
      const same = earlier === entry.name;
      throw entryError('zip_duplicate_name', entry.name, (shown) =>
        same
          ? `Entry "${shown}" appears twice.`
          : `Entry "${shown}" and entry "${printableName(earlier)}" name the same file on common file systems.`,
      );
    }
    this.names.set(folded, entry.name);
    if (!entry.directory) this.files.set(folded, entry.name);
    // Every parent of any entry is a directory (and a directory entry is one itself); a file
    // with that name conflicts with it.
    for (let slash = folded.indexOf('/'); slash !== -1; slash = folded.indexOf('/', slash + 1)) {
      this.addDirectory(folded.slice(0, slash), entry.name);
    }
    if (entry.directory) this.addDirectory(folded, entry.name);
    else if (this.directories.has(folded)) throw conflict(entry.name, this.directories.get(folded) as string);
  }

  private addDirectory(folded: string, name: string): void {
    if (this.directories.has(folded)) return;
    this.directories.set(folded, name);
    const file = this.files.get(folded);
    if (file !== undefined) throw conflict(file, name);
  }
}
