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

export function configInUse(): string {
  return inUse;
}

export function setConfigInUse(name: string | null): void {
  inUse = name ?? CONFIG_FILE;
}
