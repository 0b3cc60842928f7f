import { describe, expect, it } from 'vitest';
import { checkArgv, splitCommand } from '../../src/checks/command.js';
import { BounceError } from '../../src/errors.js';

const words = (command: string): string[] => splitCommand(command, 'check');
const refusal = (command: string): string => {
  try {
    words(command);
  } catch (err) {
    expect(err).toBeInstanceOf(BounceError);
    expect((err as BounceError).exitCode).toBe(2);
    return (err as BounceError).line;
  }
  throw new Error(`${command} was accepted`);
};

describe('splitCommand', () => {
  it('splits at blanks like a shell, quotes and backslashes included, without expanding anything', () => {
    expect(words('markdownlint-cli2 {file}')).toEqual(['markdownlint-cli2', '{file}']);
    expect(words('  vale   --output line\t{file} ')).toEqual(['vale', '--output', 'line', '{file}']);
    expect(words(`node -e "setTimeout(()=>{},1e9)" {file}`)).toEqual(['node', '-e', 'setTimeout(()=>{},1e9)', '{file}']);
    expect(words(`sh -c 'lint "$1" | grep -v note' sh {file}`)).toEqual(['sh', '-c', 'lint "$1" | grep -v note', 'sh', '{file}']);
    expect(words('tool a\\ b "x\\"y" "\\n" {file}')).toEqual(['tool', 'a b', 'x"y', '\\n', '{file}']);
    expect(words(`tool '' --file={file} $HOME *.md`)).toEqual(['tool', '', '--file={file}', '$HOME', '*.md']);
  });

  it('refuses what cannot be a check: no {file}, an unclosed quote, a trailing backslash, nothing', () => {
    expect(refusal('markdownlint-cli2 README.md')).toContain('has no {file}: put {file} where the document');
    expect(refusal("tool 'open {file}")).toContain("unclosed '");
    expect(refusal('tool {file} \\')).toContain('ends in a backslash');
    expect(refusal('   ')).toContain('is empty');
  });
});

describe('checkArgv', () => {
  it('puts the path in every word that holds {file}, as one argument whatever it holds', () => {
    const file = "/runs/my run/it's [1].md";
    expect(checkArgv({ command: 'tool --in={file} {file}', timeout_s: 5 }, file)).toEqual({ program: 'tool', args: [`--in=${file}`, file] });
  });
});
