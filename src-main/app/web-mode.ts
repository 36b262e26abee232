/**
 * Local web mode, composed: the app API over a data folder, served with the built renderer on
 * 127.0.0.1.
 *
 * The shell (this folder) is where doors are assembled; the CLI's `evroom app --web` starts web
 * mode through here instead of importing the app API door itself (doors never import each
 * other: see docs/architecture.md).
 */
import { createAppApi } from '../appapi/app-api';
import { startWebServer } from '../appapi/web-server';
import { createServiceControl } from './service-control';
import { CONTENT_SECURITY_POLICY } from './window-options';

/** Web mode, running. */
export interface RunningWebMode {
  url: string;
  port: number;
  /** Stops serving (and the HTTP service, if the Service view started it) and closes the data folder. */
  close(): Promise<void>;
}

/**
 * Starts local web mode.
 *
 * @param options - The data folder, the built renderer's folder, the port (0: any free port), the log.
 * @returns The URL to open (with its session token) and a way to stop.
 * @throws Error with a clear message when the renderer is not built or the port is taken.
 */
export async function startLocalWebMode(options: {
  dataDirectory: string;
  rendererDirectory: string;
  port: number;
  /** Where the log line of an internal fault goes; default standard error. */
  log?: (line: string) => void;
}): Promise<RunningWebMode> {
  const service = createServiceControl(options.dataDirectory);
  const api = createAppApi({
    mode: 'web',
    dataDirectory: options.dataDirectory,
    service,
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  let server;
  try {
    server = await startWebServer({
      rendererDirectory: options.rendererDirectory,
      port: options.port,
      api,
      // The window's policy, which the shell owns: web mode serves the same app under it.
      contentSecurityPolicy: CONTENT_SECURITY_POLICY,
      uploads: {
        'imports.start': async (file, name, cleanup) => api.uploads.importFile(file, name, cleanup),
        'context.import': async (file, _name, cleanup) => api.uploads.importContextPack(file, cleanup),
      },
      ...(options.log === undefined ? {} : { log: options.log }),
    });
  } catch (error) {
    api.close();
    throw error;
  }
  const running = server;
  return {
    url: running.url,
    port: running.port,
    close: async () => {
      await running.close();
      await service.close();
      api.close();
    },
  };
}
