import { beforeEach } from 'vitest';
import { setConfigInUse } from '../../src/config/in-use.js';

/**
 * The config file a hint names is state a command sets when it looks for its config
 * (src/config/in-use.ts), and main() clears before each command. A test that calls a
 * function directly starts as a command does, with none. Loaded by vitest.config.ts.
 */
beforeEach(() => setConfigInUse(null));
