import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_WINDOW_SIZE,
  loadWindowState,
  parseWindowState,
  placeWindow,
  saveWindowState,
  serializeWindowState,
  WINDOW_STATE_FILE,
  type Bounds,
} from './window-state';

const laptop: Bounds = { x: 0, y: 0, width: 1920, height: 1050 };
const rightMonitor: Bounds = { x: 1920, y: 0, width: 2560, height: 1400 };

describe('parseWindowState / serializeWindowState', () => {
  it('round-trips', () => {
    const state = { bounds: { x: 10, y: 20, width: 1000, height: 700 }, maximized: true };
    expect(parseWindowState(serializeWindowState(state))).toEqual(state);
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a missing member', '{"bounds":{"x":0,"y":0,"width":1,"height":1}}'],
    ['an unknown member', '{"bounds":{"x":0,"y":0,"width":1,"height":1},"maximized":false,"extra":1}'],
    ['a fraction', '{"bounds":{"x":0.5,"y":0,"width":1,"height":1},"maximized":false}'],
    ['a zero size', '{"bounds":{"x":0,"y":0,"width":0,"height":1},"maximized":false}'],
    ['a huge coordinate', '{"bounds":{"x":1e9,"y":0,"width":100,"height":100},"maximized":false}'],
    ['a string size', '{"bounds":{"x":0,"y":0,"width":"800","height":600},"maximized":false}'],
  ])('ignores %s', (_name, text) => {
    expect(parseWindowState(text)).toBeUndefined();
  });
});

describe('placeWindow', () => {
  it('uses the remembered bounds on a connected display', () => {
    const state = { bounds: { x: 2000, y: 100, width: 1400, height: 900 }, maximized: false };
    expect(placeWindow(state, [laptop, rightMonitor])).toEqual({
      x: 2000,
      y: 100,
      width: 1400,
      height: 900,
      maximized: false,
    });
  });

  it('falls back to the default size, placed by the system, when that display is gone', () => {
    const state = { bounds: { x: 2000, y: 100, width: 1400, height: 900 }, maximized: true };
    expect(placeWindow(state, [laptop])).toEqual({ ...DEFAULT_WINDOW_SIZE, maximized: true });
  });

  it('refuses bounds whose title bar is above the screen or barely on it', () => {
    expect(
      placeWindow({ bounds: { x: 100, y: -200, width: 900, height: 700 }, maximized: false }, [laptop]).x,
    ).toBeUndefined();
    expect(
      placeWindow({ bounds: { x: 1900, y: 10, width: 900, height: 700 }, maximized: false }, [laptop]).x,
    ).toBeUndefined();
  });

  it('cuts the size to the display and raises it to the minimum', () => {
    expect(placeWindow({ bounds: { x: 0, y: 0, width: 5000, height: 100 }, maximized: false }, [laptop])).toMatchObject(
      { width: 1920, height: 560 },
    );
  });

  it('opens at the default size on first start', () => {
    expect(placeWindow(undefined, [laptop])).toEqual({ ...DEFAULT_WINDOW_SIZE, maximized: false });
  });
});

describe('loadWindowState / saveWindowState', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  it('remembers the state in the data folder and ignores a damaged file', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'evroom-window-'));
    folders.push(folder);
    expect(await loadWindowState(folder)).toBeUndefined();
    const state = { bounds: { x: 5, y: 6, width: 900, height: 600 }, maximized: false };
    saveWindowState(folder, state);
    expect(JSON.parse(readFileSync(join(folder, WINDOW_STATE_FILE), 'utf8'))).toEqual(state);
    expect(await loadWindowState(folder)).toEqual(state);
    writeFileSync(join(folder, WINDOW_STATE_FILE), 'garbage');
    expect(await loadWindowState(folder)).toBeUndefined();
  });
});
