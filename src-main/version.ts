/**
 * The app's version, from package.json (bundled into the Electron build, read by tsx in the CLI).
 */
import { version } from '../package.json';

export const APP_VERSION: string = version;
