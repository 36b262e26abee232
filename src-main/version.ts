/**
 * The app's version, from package.json (bundled into the Electron build, read by tsx in the CLI).
 */
import packageJson from '../package.json';

export const APP_VERSION: string = packageJson.version;
