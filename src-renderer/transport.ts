/**
 * The renderer's one transport to the app API.
 *
 * In Electron the preload exposes `window.evroom.invoke`; in local web mode calls go to
 * /api/<method> with the session cookie. The renderer picks one at start and never knows more.
 *
 * Web mode's session: the address the app prints carries a token in its fragment
 * (`#token=...`). A page that opens with it takes the token out of the address bar at once (so it
 * is neither bookmarked nor kept in history) and trades it at POST /session for an HttpOnly,
 * SameSite=Strict cookie, which every tab of the same browser then sends: a new tab, a
 * middle-clicked link or a bookmarked filter works without the token. The token is kept nowhere
 * else (not in storage, where a script could read it). A call the server answers 401 means this
 * tab has no session (no cookie, or one of an earlier run): the shell then says so in place of the
 * view ({@link onNoSession}).
 *
 * Files are the one exception to "JSON in, JSON out": in web mode a bundle is sent as its raw
 * bytes to /upload/<method> (the browser streams the File; the server streams it to a temporary
 * file), never as base64 inside JSON. In Electron there is no upload: IPC carries the call.
 */
import type { AppApiAnswer, AppApiClient, AppApiResults, ErrorEnvelope } from '../src-shared/api/contract';
import { isErrorEnvelope } from '../src-shared/api/error-envelope';

/** The preload's bridge: one call, answered with the result or the error envelope (never a rejection). */
interface PreloadBridge {
  invoke(method: string, input: unknown): Promise<unknown>;
}

declare global {
  interface Window {
    evroom?: PreloadBridge;
  }
}

/** An app API call that failed, with the envelope's code, message and details. */
export class ApiCallError extends Error {
  readonly code: string;
  readonly details: ErrorEnvelope['details'];
  constructor(envelope: ErrorEnvelope) {
    super(envelope.message);
    this.name = 'ApiCallError';
    this.code = envelope.code;
    this.details = envelope.details;
  }
}

/** The result of an answer, or its envelope thrown as an ApiCallError. */
function unwrap(answer: unknown): unknown {
  const candidate = answer as Partial<AppApiAnswer> | null;
  if (candidate && candidate.ok === true) return candidate.result;
  if (candidate && candidate.ok === false && isErrorEnvelope(candidate.error)) throw new ApiCallError(candidate.error);
  throw new ApiCallError({
    code: 'transport_error',
    message: 'The app answered in a shape this page does not understand.',
    details: [],
  });
}

/**
 * The token in the page's address, taken out of it (the route before or after it stays), or
 * undefined when the address has none.
 */
function takeToken(): string | undefined {
  const hash = window.location.hash;
  const match = /([#&?])token=([A-Za-z0-9_-]+)/.exec(hash);
  if (!match?.[2]) return undefined;
  // Keep the separator before the token, drop the one after it.
  const before = hash.slice(0, match.index + 1);
  const after = hash.slice(match.index + match[0].length).replace(/^&/, '');
  const rest = (before + after).replace(/[?&]$/, '').replace(/^#$/, '');
  history.replaceState(history.state, '', window.location.pathname + window.location.search + rest);
  return match[2];
}

const noSessionListeners = new Set<() => void>();
let noSession = false;

/**
 * Calls `listener` when a call finds that this tab has no session with the app (web mode only;
 * at once when one already has).
 *
 * @returns A function that stops listening.
 */
export function onNoSession(listener: () => void): () => void {
  noSessionListeners.add(listener);
  if (noSession) listener();
  return () => noSessionListeners.delete(listener);
}

/** Reads an answer's JSON; a 401 `unauthorized` tells the listeners this tab has no session. */
async function readAnswer(response: Response): Promise<unknown> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiCallError({
      code: 'transport_error',
      message: `The app answered HTTP ${response.status} without a JSON body.`,
      details: [],
    });
  }
  const error = (body as Partial<{ error: ErrorEnvelope }> | null)?.error;
  if (response.status === 401 && error?.code === 'unauthorized' && !noSession) {
    noSession = true;
    for (const listener of noSessionListeners) listener();
  }
  return body;
}

/** Trades the token for the session cookie; resolves either way (a failure shows as no session). */
async function startSession(token: string | undefined): Promise<void> {
  if (token === undefined) return;
  try {
    await readAnswer(
      await fetch('/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '{}',
      }),
    );
  } catch {
    // The calls that follow meet the missing session and say so.
  }
}

function httpInvoke(session: Promise<void>): PreloadBridge['invoke'] {
  return async (method, input) => {
    await session;
    const response = await fetch(`/api/${encodeURIComponent(method)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input ?? {}),
    });
    return unwrap(await readAnswer(response));
  };
}

/** Sends a file's raw bytes to a method that takes uploads; answers what the method answers. */
export type UploadFile = <M extends 'imports.start' | 'context.import'>(
  method: M,
  file: Blob,
  name: string,
) => Promise<AppApiResults[M]>;

function httpUpload(session: Promise<void>): UploadFile {
  return async (method, file, name) => {
    await session;
    const response = await fetch(`/upload/${encodeURIComponent(method)}?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: file,
    });
    return unwrap(await readAnswer(response)) as AppApiResults[typeof method];
  };
}

/**
 * Builds the typed client over whichever transport this window has, with `upload` in web mode
 * (undefined in Electron, where files go through the client as before).
 */
export function createClient(): { client: AppApiClient; transport: 'ipc' | 'http'; upload: UploadFile | undefined } {
  const bridge = window.evroom;
  const session = bridge ? Promise.resolve() : startSession(takeToken());
  const invoke = bridge
    ? async (method: string, input: unknown) => unwrap(await bridge.invoke(method, input))
    : httpInvoke(session);
  const client = new Proxy({} as AppApiClient, {
    get(_target, method: string) {
      return (input?: unknown) => invoke(method, input);
    },
  });
  return { client, transport: bridge ? 'ipc' : 'http', upload: bridge ? undefined : httpUpload(session) };
}
