/**
 * The rule that a unit test lives at the path of its module: `src/<path>.ts` (or a program in
 * `adapters/`) is tested in `test/<path>.test.ts`, or, when one file would be too long, in
 * `test/<path>.<aspect>.test.ts` (`run-document.faults.test.ts`). The one owner of that rule:
 * the layout test and the count in docs/architecture.md both come from here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every `.ts` file under `dir`, relative to `root`, with forward slashes, sorted. */
export function tsFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const path = join(at, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/**
 * The module a test file's path names, `test/engine/pass.test.ts` and
 * `test/engine/pass.repairs.test.ts` both `engine/pass`, or null for a file that is not a test.
 */
export function moduleNamed(testFile: string): string | null {
  const m = /^test\/(.+?)(?:\.[a-z0-9-]+)?\.test\.ts$/.exec(testFile);
  return m ? m[1]! : null;
}

/** The source files a module name can be: `src/<name>.ts`, or `<name>.ts` for a program in `adapters/`. */
export function sourcesOf(root: string, module: string): string[] {
  return [`src/${module}.ts`, `${module}.ts`].filter((path) => existsSync(join(root, path)));
}

/** The source files under src/, split by whether a unit test at their path exists. */
export function unitTestCoverage(root: string): { tested: string[]; untested: string[] } {
  const named = new Set(
    tsFiles(root, 'test')
      .map(moduleNamed)
      .filter((m) => m !== null),
  );
  const sources = tsFiles(root, 'src');
  const has = (src: string): boolean => named.has(src.slice('src/'.length, -'.ts'.length));
  return { tested: sources.filter(has), untested: sources.filter((s) => !has(s)) };
}
