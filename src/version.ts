import { packageVersion } from './package.js';

/** The package version, read once from package.json. */
export const VERSION = packageVersion();
