/**
 * The native program behind the npm package's `codex` launcher. `@openai/codex` installs
 * `bin/codex.js`, a Node script that finds the platform's binary and replaces itself with
 * it (execve): a Node start, about 35-40 ms, before every `codex exec`. The codex adapter
 * runs that binary itself, with the two variables the launcher sets, when the package says
 * where it is in a layout this code knows (`codex-package.json`, layout 1). Anything else
 * (another layout, another install, Windows, a `BOUNCE_CODEX_BIN` that is not the launcher)
 * runs the program as found. docs/adapters.md#codex
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** The launcher's targets: Rust triples by Node's platform and arch (as in @openai/codex's bin/codex.js). */
const TRIPLES: Record<string, string> = {
  'linux-x64': 'x86_64-unknown-linux-musl',
  'linux-arm64': 'aarch64-unknown-linux-musl',
  'android-x64': 'x86_64-unknown-linux-musl',
  'android-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin',
  'darwin-arm64': 'aarch64-apple-darwin',
};

/** The npm package holding each triple's binary. */
const PLATFORM_PACKAGES: Record<string, string> = {
  'x86_64-unknown-linux-musl': '@openai/codex-linux-x64',
  'aarch64-unknown-linux-musl': '@openai/codex-linux-arm64',
  'x86_64-apple-darwin': '@openai/codex-darwin-x64',
  'aarch64-apple-darwin': '@openai/codex-darwin-arm64',
};

/** The variables by which the launcher tells codex which package manager installed it. */
const MANAGED_BY = ['CODEX_MANAGED_BY_NPM', 'CODEX_MANAGED_BY_BUN', 'CODEX_MANAGED_BY_PNPM', 'CODEX_MANAGED_BY_VITE_PLUS'];

export interface NativeCodex {
  /** The binary to run instead of the launcher. */
  program: string;
  /** The child's environment: the given one plus what the launcher would have set. */
  env: NodeJS.ProcessEnv;
}

interface LayoutFile {
  layoutVersion?: unknown;
  entrypoint?: unknown;
}

/** The directory of the triple's files: the platform package's vendor/<triple>, else the main package's. */
function vendorDir(packageRoot: string, triple: string): string | null {
  const platformPackage = PLATFORM_PACKAGES[triple];
  const candidates: string[] = [];
  try {
    const resolved = createRequire(join(packageRoot, 'package.json')).resolve(`${platformPackage}/package.json`);
    candidates.push(join(dirname(resolved), 'vendor', triple));
  } catch {
    // Not installed beside it: older packages carried the binaries themselves.
  }
  candidates.push(join(packageRoot, 'vendor', triple));
  return candidates.find((dir) => existsSync(join(dir, 'codex-package.json'))) ?? null;
}

/**
 * The binary behind `program` when `program` is @openai/codex's launcher and its package
 * describes the binary in layout 1; null otherwise. The environment gets
 * CODEX_MANAGED_PACKAGE_ROOT as the launcher sets it, and CODEX_MANAGED_BY_NPM: the launcher
 * may name bun, pnpm or vite-plus there instead, which only shapes the update hints of
 * codex's interactive screens, never shown by `codex exec`.
 */
export function nativeCodex(
  program: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): NativeCodex | null {
  const triple = TRIPLES[`${platform}-${arch}`];
  if (!triple) return null;
  try {
    const launcher = realpathSync(program);
    if (basename(launcher) !== 'codex.js' || basename(dirname(launcher)) !== 'bin') return null;
    const packageRoot = dirname(dirname(launcher));
    const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name?: unknown };
    if (pkg.name !== '@openai/codex') return null;
    const dir = vendorDir(packageRoot, triple);
    if (!dir) return null;
    const layout = JSON.parse(readFileSync(join(dir, 'codex-package.json'), 'utf8')) as LayoutFile;
    if (layout.layoutVersion !== 1 || typeof layout.entrypoint !== 'string' || layout.entrypoint.includes('..')) return null;
    const binary = join(dir, layout.entrypoint);
    if (!existsSync(binary)) return null;
    const childEnv: NodeJS.ProcessEnv = { ...env, CODEX_MANAGED_PACKAGE_ROOT: packageRoot };
    for (const name of MANAGED_BY) delete childEnv[name];
    childEnv.CODEX_MANAGED_BY_NPM = '1';
    return { program: binary, env: childEnv };
  } catch {
    return null;
  }
}
