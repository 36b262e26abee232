/**
 * Files the system asks the app to open: a double-clicked bundle or receipt (file
 * associations), the arguments of a second instance, macOS's `open-file` events.
 *
 * Kept apart from Electron so the rules are tested without it. An evidence bundle (`.zip`) is
 * imported, a document (`.json`) verified; anything else is ignored. Files that arrive before
 * the window is ready wait in a queue, in order.
 */
import { isAbsolute, resolve } from 'node:path';

/** What opening a file does. */
export type OpenedFileKind = 'bundle' | 'document';

/**
 * What opening this file does, from its extension (case-insensitive).
 *
 * @param path - A file path.
 * @returns `bundle` for .zip, `document` for .json, undefined for anything else.
 * @throws TypeError if `path` is not a string.
 */
export function openedFileKind(path: string): OpenedFileKind | undefined {
  if (typeof path !== 'string') throw new TypeError('openedFileKind expects a path');
  const lower = path.toLowerCase();
  if (lower.endsWith('.zip')) return 'bundle';
  if (lower.endsWith('.json')) return 'document';
  return undefined;
}

/**
 * The files a command line asks to open.
 *
 * @param argv - The process's arguments, the executable first.
 * @param workingDirectory - The folder relative paths are relative to (the second instance's).
 * @param leading - How many leading arguments are not files: 1 for a packaged app (the
 *   executable), 2 when run as `electron PATH` (the executable and the app's path).
 * @returns Absolute paths of .zip and .json arguments, in order; options (`-…`) and other
 *   arguments are skipped (Chromium adds switches of its own to a second instance's argv).
 * @throws TypeError for an argv that is not an array of strings or a relative working folder.
 */
export function filesToOpen(argv: readonly string[], workingDirectory: string, leading: number): string[] {
  if (!Array.isArray(argv) || argv.some((argument) => typeof argument !== 'string'))
    throw new TypeError('filesToOpen expects argv as strings');
  if (typeof workingDirectory !== 'string' || !isAbsolute(workingDirectory))
    throw new TypeError('filesToOpen expects an absolute working folder');
  if (!Number.isSafeInteger(leading) || leading < 0)
    throw new RangeError('filesToOpen: leading must be a non-negative integer');
  return argv
    .slice(leading)
    .filter((argument) => argument.length > 0 && !argument.startsWith('-') && openedFileKind(argument) !== undefined)
    .map((argument) => resolve(workingDirectory, argument));
}

/** Files waiting for the window, handed to one handler once it is ready. */
export interface OpenQueue {
  /** Opens the file now when a handler is set, else keeps it until {@link OpenQueue.ready}. */
  add(path: string): void;
  /** Sets the handler and hands it every waiting file, in arrival order. */
  ready(handler: (path: string) => void): void;
}

/**
 * A queue for files that arrive before the app can open them.
 *
 * @returns An empty queue.
 */
export function createOpenQueue(): OpenQueue {
  const waiting: string[] = [];
  let handler: ((path: string) => void) | undefined;
  return {
    add(path) {
      if (typeof path !== 'string' || path.length === 0) throw new TypeError('OpenQueue.add expects a path');
      if (handler) handler(path);
      else waiting.push(path);
    },
    ready(next) {
      if (typeof next !== 'function') throw new TypeError('OpenQueue.ready expects a function');
      handler = next;
      for (const path of waiting.splice(0)) next(path);
    },
  };
}
