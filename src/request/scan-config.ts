/** What `bounce scan` and `bounce lint` take from config: the markers (with `--marker`'s) and `max_bytes`. */
import { loadConfigKeys } from '../config/load.js';
import { MARKER_NAME, MARKER_NAME_RULE } from '../config/schema.js';
import { BounceError } from '../errors.js';
import type { Io } from '../io.js';

/** The config's markers and the `--marker` names, each checked by the config's rule for a marker name, and its `max_bytes`. */
export function scanConfig(io: Io, explicit: string | undefined, flags: readonly string[]): { markers: string[]; maxBytes: number } {
  for (const name of flags) {
    if (!MARKER_NAME.test(name)) {
      const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name);
      throw new BounceError(`--marker ${shown} is not a marker name`, { hint: MARKER_NAME_RULE });
    }
  }
  const { config } = loadConfigKeys(io.cwd, io.env, explicit, ['markers', 'max_bytes']);
  return { markers: [...config.markers, ...flags], maxBytes: config.max_bytes };
}
