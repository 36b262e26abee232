/**
 * Our own checks on every zip entry, from its central directory record, before any data is read.
 *
 * yauzl parses the structure; these rules decide what we accept, whatever the library does.
 * Each failure is a {@link BundleError} naming the entry.
 *
 * Decisions:
 * - Names must be flagged UTF-8 (general purpose bit 11) or be plain ASCII: an unflagged
 *   non-ASCII name reads as CP437 in some tools and UTF-8 in others, so two tools would see two
 *   different files. An Info-ZIP Unicode Path field (0x7075) whose name differs from the entry's
 *   own name is refused for the same reason.
 * - Refused in names: a leading `/` (absolute), a drive letter (`C:`), `..` segments, `.` and
 *   empty segments, backslashes, C0 and C1 control characters (NUL included) and DEL, and more
 *   than {@link MAX_NAME_BYTES} bytes. A `:` elsewhere is allowed: anchors/<batch_id>.json names
 *   hold one, and nothing here is ever extracted to a file system.
 * - Duplicates are refused exactly and after folding: each segment in Unicode NFC, lower case,
 *   without trailing dots and spaces. Those are the names Windows and macOS file systems treat
 *   as one file, so a bundle that extracts differently on another machine is refused here. A
 *   file whose folded name is also a folded directory of another entry is refused too.
 * - Types come from the unix mode (hosts 3 and 19) or DOS attributes: symbolic links (unix
 *   S_IFLNK, or the Windows reparse-point attribute) and devices, FIFOs and sockets are refused.
 *   A directory must be a real directory entry: a name ending in `/`, no content, and a mode
 *   that (when present) says directory; a directory mode on a name without `/` is refused.
 * - Encrypted entries (bit 0; strong encryption bit 6; AES method 99) and methods other than
 *   stored (0) and deflate (8) are refused.
 */
import { crc32 } from 'node:zlib';
import { checkEntryName, EntryNames, foldEntryName, MAX_NAME_BYTES } from '../../src-shared/evidence/entry-names';
import { BundleError, printableName, type BundleErrorCode } from './errors';

export { checkEntryName, EntryNames, foldEntryName, MAX_NAME_BYTES };
import { checkEntrySizes, type ZipLimits } from './limits';

/** The central-directory fields the checks read (yauzl's Entry has all of them). */
export interface CentralEntryFields {
  /** The raw name bytes (yauzl with `decodeStrings: false`). */
  nameBytes: Uint8Array;
  generalPurposeBitFlag: number;
  versionMadeBy: number;
  externalFileAttributes: number;
  compressionMethod: number;
  compressedSize: number;
  uncompressedSize: number;
  extraFields: readonly { id: number; data: Uint8Array }[];
}

/** What the checks conclude about one entry. */
export interface CheckedEntry {
  /** The decoded name (directories keep their trailing `/`). */
  name: string;
  directory: boolean;
}

const FLAG_ENCRYPTED = 0x1;
const FLAG_STRONG_ENCRYPTION = 0x40;
const FLAG_UTF8 = 0x800;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const METHOD_AES = 99;
const UNICODE_PATH_FIELD = 0x7075;

const HOST_UNIX = 3;
const HOST_DARWIN = 19;
const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const DOS_DIRECTORY = 0x10;
const DOS_REPARSE_POINT = 0x400;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decode an entry's name.
 *
 * @param nameBytes - The raw name field.
 * @param flags - The general purpose bit flag.
 * @param extraFields - The entry's extra fields (for the Info-ZIP Unicode Path field).
 * @returns The name.
 * @throws BundleError zip_path_invalid for a name that is not UTF-8, is unflagged non-ASCII, or
 *   carries a different Unicode Path name.
 */
export function decodeEntryName(
  nameBytes: Uint8Array,
  flags: number,
  extraFields: CentralEntryFields['extraFields'] = [],
): string {
  if (!(nameBytes instanceof Uint8Array)) throw new TypeError('decodeEntryName expects the name bytes');
  const shown = (): string => printableName(Buffer.from(nameBytes).toString('latin1'));
  let name: string;
  if ((flags & FLAG_UTF8) !== 0) {
    try {
      name = utf8.decode(nameBytes);
    } catch {
      throw new BundleError(
        'zip_path_invalid',
        `Entry "${shown()}": its name is flagged UTF-8 but is not valid UTF-8.`,
        {
          entry: shown(),
        },
      );
    }
  } else {
    if (nameBytes.some((byte) => byte > 0x7f)) {
      throw new BundleError(
        'zip_path_invalid',
        `Entry "${shown()}": its name has non-ASCII bytes without the UTF-8 flag, so tools would read it differently.`,
        { entry: shown() },
      );
    }
    name = Buffer.from(nameBytes).toString('latin1');
  }
  for (const field of extraFields) {
    if (field.id !== UNICODE_PATH_FIELD || field.data.length < 6 || field.data[0] !== 1) continue;
    // Tools use the field only when its CRC matches the name; otherwise it is ignored, here too.
    const crc = Buffer.from(field.data.subarray(1, 5)).readUInt32LE(0);
    if (crc !== crc32(nameBytes)) continue;
    let unicodeName: string;
    try {
      unicodeName = utf8.decode(field.data.subarray(5));
    } catch {
      unicodeName = '\u0000';
    }
    if (unicodeName !== name) {
      throw new BundleError(
        'zip_path_invalid',
        `Entry "${printableName(name)}": it carries a second, different Unicode name ("${printableName(unicodeName)}").`,
        { entry: printableName(name) },
      );
    }
  }
  return name;
}

/** What kind of thing the attributes say an entry is. */
type EntryKind = 'file' | 'directory' | 'symlink' | 'special' | 'unknown';

function kindOf(versionMadeBy: number, attributes: number): EntryKind {
  const host = versionMadeBy >>> 8;
  if (host === HOST_UNIX || host === HOST_DARWIN) {
    const type = (attributes >>> 16) & S_IFMT;
    if (type === S_IFLNK) return 'symlink';
    if (type === S_IFDIR) return 'directory';
    if (type === S_IFREG) return 'file';
    if (type !== 0) return 'special';
    // No unix type bits: fall back to the DOS attributes, as unzip does.
  }
  if ((attributes & DOS_REPARSE_POINT) !== 0) return 'symlink';
  if ((attributes & DOS_DIRECTORY) !== 0) return 'directory';
  return 'unknown';
}

/**
 * Check one central directory record: name, type, encryption, compression, size and ratio.
 *
 * @param fields - The record's fields.
 * @param limits - The limits in force.
 * @returns The decoded name and whether it is a directory.
 * @throws BundleError with the code of the first rule broken.
 */
export function checkCentralEntry(fields: CentralEntryFields, limits: ZipLimits): CheckedEntry {
  const name = decodeEntryName(fields.nameBytes, fields.generalPurposeBitFlag, fields.extraFields);
  checkEntryName(name);
  return { name, directory: checkEntryFields(name, fields, limits) };
}

/**
 * An error about one entry. The printable name is made only here: JSON-escaping every name of
 * a large zip would cost more than the checks themselves.
 */
function entryError(code: BundleErrorCode, name: string, message: (shown: string) => string): BundleError {
  const shown = printableName(name);
  return new BundleError(code, message(shown), { entry: shown });
}

/** The rules on one record beyond its name; returns whether it is a directory. */
function checkEntryFields(name: string, fields: CentralEntryFields, limits: ZipLimits): boolean {
  const refuse = (code: BundleErrorCode, message: (shown: string) => string): BundleError =>
    entryError(code, name, message);
  if (
    (fields.generalPurposeBitFlag & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) !== 0 ||
    fields.compressionMethod === METHOD_AES
  ) {
    throw refuse('zip_encrypted', (shown) => `Entry "${shown}" is encrypted; bundles are never encrypted.`);
  }
  const kind = kindOf(fields.versionMadeBy, fields.externalFileAttributes);
  if (kind === 'symlink') throw refuse('zip_symlink', (shown) => `Entry "${shown}" is a symbolic link.`);
  if (kind === 'special') {
    throw refuse('zip_special_file', (shown) => `Entry "${shown}" is a device, FIFO or socket, not a file.`);
  }
  const directory = name.endsWith('/');
  if (directory) {
    if (kind === 'file') {
      throw refuse(
        'zip_directory_invalid',
        (shown) => `Entry "${shown}" is named as a directory but its mode says file.`,
      );
    }
    // Deflate needs 2 bytes to say "nothing"; anything more is content a directory cannot have.
    if (fields.uncompressedSize !== 0 || fields.compressedSize > 2) {
      throw refuse('zip_directory_invalid', (shown) => `Directory entry "${shown}" has content.`);
    }
  } else if (kind === 'directory') {
    throw refuse(
      'zip_directory_invalid',
      (shown) => `Entry "${shown}" has a directory mode but its name does not end with "/".`,
    );
  }
  if (fields.compressionMethod !== METHOD_STORED && fields.compressionMethod !== METHOD_DEFLATE) {
    throw refuse(
      'zip_unsupported_compression',
      (shown) =>
        `Entry "${shown}" uses compression method ${fields.compressionMethod}; only stored (0) and deflate (8) are read.`,
    );
  }
  checkEntrySizes(name, fields.compressedSize, fields.uncompressedSize, limits);
  return directory;
}
