/**
 * The app API contract: every call the renderer may make to the main process.
 *
 * One map names each method with its input and output types and a runtime validator for the
 * input. src-main/appapi implements it once; the Electron preload exposes it over IPC and local
 * web mode serves it over HTTP. The renderer sees only this contract, never the transport.
 */

/** What the app tells the renderer about itself. */
export interface AppInfo {
  name: string;
  version: string;
  /** `electron` or `web`. */
  mode: 'electron' | 'web';
  dataDirectory: string;
}

/** A validator returns the input typed, or throws ApiInputError naming what is wrong. */
export type InputValidator<T> = (input: unknown) => T;

export class ApiInputError extends Error {
  readonly code = 'invalid_request';
  readonly httpStatus = 400;
  constructor(message: string) {
    super(message);
    this.name = 'ApiInputError';
  }
}

function noInput(input: unknown): undefined {
  if (input !== undefined && input !== null && !(typeof input === 'object' && Object.keys(input).length === 0)) {
    throw new ApiInputError('this call takes no input');
  }
  return undefined;
}

/** The contract: method name to input validator; output types in `AppApiResults`. */
export const APP_API = {
  info: noInput,
} as const satisfies Record<string, InputValidator<unknown>>;

export type AppApiMethod = keyof typeof APP_API;
export type AppApiInput<M extends AppApiMethod> = ReturnType<(typeof APP_API)[M]>;

export interface AppApiResults {
  info: AppInfo;
}

/** The typed client surface the renderer calls. */
export type AppApiClient = {
  [M in AppApiMethod]: (input: AppApiInput<M>) => Promise<AppApiResults[M]>;
};

/** Whether a string names a method of the contract. */
export function isAppApiMethod(name: unknown): name is AppApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(APP_API, name);
}
