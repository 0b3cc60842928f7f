/**
 * The config file the running command reads, as a hint names it ("raise max_bytes in
 * conf/team.yaml"): `--config` or `BOUNCE_CONFIG` as given, else the bounce.config.yaml found
 * (relative to the working directory, absolute outside it), else `bounce.config.yaml`, the
 * file to make. findConfig sets it each time a command looks for its config; main() resets
 * it before each command. A process serving requests at once (`bounce serve`, `bounce mcp`)
 * runs each in a scope of its own (withOwnConfigInUse), so a request's hints name the config
 * that request read, not the one another request looked for in the meantime.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export const CONFIG_FILE = 'bounce.config.yaml';

interface InUse {
  file: string;
  /** `--config FILE` or `BOUNCE_CONFIG` as given; undefined when the file was found (or none). */
  named: string | undefined;
}

/** The command's, outside any request scope. */
const processWide: InUse = { file: CONFIG_FILE, named: undefined };
const requestScope = new AsyncLocalStorage<InUse>();
const current = (): InUse => requestScope.getStore() ?? processWide;

export function configInUse(): string {
  return current().file;
}

/**
 * The config the running command was told to read, `--config FILE` or `BOUNCE_CONFIG` as
 * given; undefined when it found one by itself (or none). A printed `bounce ...` step names
 * it with --config, so it reads the same config where BOUNCE_CONFIG is not set.
 */
export function configNamed(): string | undefined {
  return current().named;
}

/** `given`: the name is `--config` or `BOUNCE_CONFIG` as given, not a file found. */
export function setConfigInUse(name: string | null, given = false): void {
  const c = current();
  c.file = name ?? CONFIG_FILE;
  c.named = given && name !== null ? name : undefined;
}

/** Runs `work` (one request of a server) with a config in use of its own, which starts as none looked for. */
export function withOwnConfigInUse<T>(work: () => T): T {
  return requestScope.run({ file: CONFIG_FILE, named: undefined }, work);
}
