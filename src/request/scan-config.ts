/** What `bounce scan` and `bounce lint` take from config: the markers (with `--marker`'s) and `max_bytes`. */
import { loadConfigKeys } from '../config/load.js';
import { markerFlagError } from '../config/defaults.js';
import type { Io } from '../io.js';

/** The config's markers and the `--marker` names, each checked by the config's rule for a marker name, and its `max_bytes`. */
export function scanConfig(io: Io, explicit: string | undefined, flags: readonly string[]): { markers: string[]; maxBytes: number } {
  for (const name of flags) {
    const wrong = markerFlagError(name);
    if (wrong) throw wrong;
  }
  const { config } = loadConfigKeys(io.cwd, io.env, explicit, ['markers', 'max_bytes']);
  return { markers: [...config.markers, ...flags], maxBytes: config.max_bytes };
}
