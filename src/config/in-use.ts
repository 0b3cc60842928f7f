/**
 * The config file the running command reads, as a hint names it ("raise max_bytes in
 * conf/team.yaml"): `--config` or `BOUNCE_CONFIG` as given, else the bounce.config.yaml found
 * (relative to the working directory, absolute outside it), else `bounce.config.yaml`, the
 * file to make. findConfig sets it each time a command looks for its config; main() resets
 * it before each command. One process serving requests at once (`bounce serve`, `bounce
 * mcp`) holds the last one looked for.
 */
export const CONFIG_FILE = 'bounce.config.yaml';

let inUse = CONFIG_FILE;
let named: string | undefined;

export function configInUse(): string {
  return inUse;
}

/**
 * The config the running command was told to read, `--config FILE` or `BOUNCE_CONFIG` as
 * given; undefined when it found one by itself (or none). A printed `bounce ...` step names
 * it with --config, so it reads the same config where BOUNCE_CONFIG is not set.
 */
export function configNamed(): string | undefined {
  return named;
}

/** `given`: the name is `--config` or `BOUNCE_CONFIG` as given, not a file found. */
export function setConfigInUse(name: string | null, given = false): void {
  inUse = name ?? CONFIG_FILE;
  named = given && name !== null ? name : undefined;
}
