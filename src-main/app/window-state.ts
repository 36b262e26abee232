/**
 * The main window's size and position, remembered in the data folder (window-state.json).
 *
 * Kept apart from Electron so every rule is tested without it: the file is read strictly (a
 * damaged or foreign file is ignored, never trusted), and remembered bounds are only used when
 * they still land on a display that is connected now: a window restored onto a monitor that
 * was unplugged would open out of sight.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file's name in the data folder. */
export const WINDOW_STATE_FILE = 'window-state.json';
/** The window's size on first start, and whenever nothing usable was remembered. */
export const DEFAULT_WINDOW_SIZE = Object.freeze({ width: 1280, height: 820 });
/** The smallest window the app lays out well. */
export const MIN_WINDOW_SIZE = Object.freeze({ width: 800, height: 560 });
/** How much of the window's title bar must lie on a display for the bounds to be used. */
const MIN_VISIBLE = 64;
/** Larger than any display today; a bigger number is a damaged file. */
const MAX_COORDINATE = 100_000;

/** A rectangle in screen coordinates (Electron's Rectangle). */
export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What is remembered. */
export interface WindowState {
  bounds: Bounds;
  maximized: boolean;
}

/** Where the window opens: the bounds to pass to BrowserWindow, and whether to maximize. */
export interface WindowPlacement {
  width: number;
  height: number;
  /** Absent: let the system place the window (centered). */
  x?: number;
  y?: number;
  maximized: boolean;
}

function isCoordinate(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= MAX_COORDINATE;
}

/**
 * Parse window-state.json.
 *
 * @param text - The file's text.
 * @returns The state, or undefined when the text is not exactly `{bounds: {x, y, width,
 *   height}, maximized}` with integer coordinates and a positive size.
 * @throws TypeError if `text` is not a string.
 */
export function parseWindowState(text: string): WindowState | undefined {
  if (typeof text !== 'string') throw new TypeError('parseWindowState expects the file text');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { bounds, maximized } = value as Record<string, unknown>;
  if (Object.keys(value).some((key) => key !== 'bounds' && key !== 'maximized') || typeof maximized !== 'boolean')
    return undefined;
  if (typeof bounds !== 'object' || bounds === null || Array.isArray(bounds)) return undefined;
  const { x, y, width, height } = bounds as Record<string, unknown>;
  if (!isCoordinate(x) || !isCoordinate(y) || !isCoordinate(width) || !isCoordinate(height) || width < 1 || height < 1)
    return undefined;
  return { bounds: { x, y, width, height }, maximized };
}

/**
 * Write window-state.json's text.
 *
 * @param state - The window's state.
 * @returns JSON text with a newline.
 */
export function serializeWindowState(state: WindowState): string {
  if (typeof state !== 'object' || state === null || typeof state.bounds !== 'object')
    throw new TypeError('serializeWindowState expects a window state');
  const { x, y, width, height } = state.bounds;
  return `${JSON.stringify({ bounds: { x, y, width, height }, maximized: state.maximized === true })}\n`;
}

/**
 * Where to open the window, given what was remembered and the displays connected now.
 *
 * Remembered bounds are used when at least {@link MIN_VISIBLE} pixels of their top edge (the
 * title bar) lie within one display's work area, with the size cut to that display and raised
 * to {@link MIN_WINDOW_SIZE}; otherwise the default size, placed by the system.
 *
 * @param state - What window-state.json held, if anything usable.
 * @param workAreas - The work area of every display now connected.
 * @returns The placement.
 */
export function placeWindow(state: WindowState | undefined, workAreas: readonly Bounds[]): WindowPlacement {
  if (!Array.isArray(workAreas)) throw new TypeError('placeWindow expects the displays’ work areas');
  const fallback: WindowPlacement = { ...DEFAULT_WINDOW_SIZE, maximized: state?.maximized ?? false };
  if (state === undefined) return fallback;
  const { bounds } = state;
  const display = workAreas.find((area) => {
    const left = Math.max(bounds.x, area.x);
    const right = Math.min(bounds.x + bounds.width, area.x + area.width);
    const topInside = bounds.y >= area.y && bounds.y < area.y + area.height;
    return topInside && right - left >= MIN_VISIBLE;
  });
  if (display === undefined) return fallback;
  return {
    x: bounds.x,
    y: bounds.y,
    width: Math.max(MIN_WINDOW_SIZE.width, Math.min(bounds.width, display.width)),
    height: Math.max(MIN_WINDOW_SIZE.height, Math.min(bounds.height, display.height)),
    maximized: state.maximized,
  };
}

/**
 * Read the remembered state from the data folder.
 *
 * @param dataDirectory - The data folder.
 * @returns The state, or undefined when there is none or it is unusable (never throws for that).
 */
export async function loadWindowState(dataDirectory: string): Promise<WindowState | undefined> {
  try {
    return parseWindowState(await readFile(join(dataDirectory, WINDOW_STATE_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Remember the window's state in the data folder, replacing the file in one step (a crash
 * mid-write leaves the old file, never half a new one).
 *
 * Synchronous on purpose: it runs in the window's `close` handler, and the app quits right
 * after; an asynchronous write could be cut short.
 *
 * @param dataDirectory - The data folder.
 * @param state - The state.
 */
export function saveWindowState(dataDirectory: string, state: WindowState): void {
  const file = join(dataDirectory, WINDOW_STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, serializeWindowState(state), { mode: 0o600 });
  renameSync(temporary, file);
}
