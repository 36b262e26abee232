/**
 * The implementation of the app API contract (src-shared/api), shared by IPC and local HTTP.
 */
import { APP_VERSION } from '../version';
import { APP_API, ApiInputError, isAppApiMethod, type AppApiResults, type AppInfo } from '../../src-shared/api/contract';

export interface AppApiOptions {
  mode: AppInfo['mode'];
  dataDirectory: string;
}

/** A method not in the contract. */
export class UnknownMethodError extends Error {
  readonly code = 'not_found';
  readonly httpStatus = 404;
  constructor(method: string) {
    super(`unknown app API method '${method}'`);
    this.name = 'UnknownMethodError';
  }
}

/**
 * Creates the dispatcher: validates the method name and the input, then runs the method.
 *
 * @returns a function taking the untrusted method name and input
 */
export function createAppApi(options: AppApiOptions): (method: string, input: unknown) => Promise<unknown> {
  const handlers: { [M in keyof AppApiResults]: (input: ReturnType<(typeof APP_API)[M]>) => Promise<AppApiResults[M]> } = {
    info: async () => ({ name: 'Evidence Room', version: APP_VERSION, mode: options.mode, dataDirectory: options.dataDirectory }),
  };
  return async (method, input) => {
    if (!isAppApiMethod(method)) throw new UnknownMethodError(method);
    const validated = APP_API[method](input);
    return handlers[method](validated);
  };
}

export { ApiInputError };
