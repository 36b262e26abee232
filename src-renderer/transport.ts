/**
 * The renderer's one transport to the app API.
 *
 * In Electron the preload exposes `window.evroom.invoke`; in local web mode calls go to
 * /api/<method> with the session token the server put in the URL fragment. The renderer picks
 * one at start and never knows more.
 *
 * Files are the one exception to "JSON in, JSON out": in web mode a bundle is sent as its raw
 * bytes to /upload/<method> (the browser streams the File; the server streams it to a temporary
 * file), never as base64 inside JSON. In Electron there is no upload: IPC carries the call.
 */
import type { AppApiAnswer, AppApiClient, ErrorEnvelope, ImportProgress } from '../src-shared/api/contract';
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

function readToken(): string | null {
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (match?.[1]) {
    sessionStorage.setItem('evroom.token', match[1]);
    // Keep the token out of the visible URL and of history entries.
    history.replaceState(null, '', window.location.pathname + window.location.search);
    return match[1];
  }
  return sessionStorage.getItem('evroom.token');
}

function httpInvoke(token: string | null): PreloadBridge['invoke'] {
  return async (method, input) => {
    const response = await fetch(`/api/${encodeURIComponent(method)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? ''}` },
      body: JSON.stringify(input ?? {}),
    });
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
    return unwrap(body);
  };
}

/** Sends a file's raw bytes to a method that takes uploads; answers what the method answers. */
export type UploadFile = (method: 'imports.start', file: Blob, name: string) => Promise<ImportProgress>;

function httpUpload(token: string | null): UploadFile {
  return async (method, file, name) => {
    const response = await fetch(`/upload/${encodeURIComponent(method)}?name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${token ?? ''}` },
      body: file,
    });
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
    return unwrap(body) as ImportProgress;
  };
}

/**
 * Builds the typed client over whichever transport this window has, with `upload` in web mode
 * (undefined in Electron, where files go through the client as before).
 */
export function createClient(): { client: AppApiClient; transport: 'ipc' | 'http'; upload: UploadFile | undefined } {
  const bridge = window.evroom;
  const token = bridge ? null : readToken();
  const invoke = bridge
    ? async (method: string, input: unknown) => unwrap(await bridge.invoke(method, input))
    : httpInvoke(token);
  const client = new Proxy({} as AppApiClient, {
    get(_target, method: string) {
      return (input?: unknown) => invoke(method, input);
    },
  });
  return { client, transport: bridge ? 'ipc' : 'http', upload: bridge ? undefined : httpUpload(token) };
}
