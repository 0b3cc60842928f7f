#!/usr/bin/env python3
"""Writes src/protocol/look-alikes.ts: the characters that look like a Latin letter, A to Z in
either case, that NFKC does not already fold to it, and those that look like the hyphen and the
underscore a marker name may hold (docs/scanning.md, "Disguised markers").

usage: python3 scripts/look-alikes.py confusables.txt > src/protocol/look-alikes.ts

confusables.txt is Unicode's data for UTS #39 (https://www.unicode.org/Public/security/),
of the Unicode version of this Python's unicodedata (its header says which). What is taken:

1. the characters that read as a Latin letter by their names in unicodedata: every Latin
   small capital ("LATIN LETTER SMALL CAPITAL X", "LATIN CAPITAL LETTER SMALL CAPITAL X"),
   the kra (a small capital K), and every negative circled or squared Latin capital letter
   (NFKC already folds the circled and squared ones);
2. every line of confusables.txt whose source is not ASCII and whose target (its skeleton)
   reads as one Latin letter: a letter a-z or A-Z; "rn", the skeleton of m; or the skeleton
   of a character of 1 (the Cyrillic ka, te and em share theirs with the small capitals K,
   T and M, which confusables.txt maps to the kra, to the small capital T and to the
   turned w);
3. the few look-alikes of EXTRA below, which confusables.txt leaves out;
4. what NFKC already folds to the same letter is left out: the scanner reads it through NFKC.

The look-alikes of - and _ (LOOK_ALIKE_MARKS) are every line of confusables.txt whose source is
not ASCII and whose target is - or _ (the hyphen, the non-breaking hyphen, the figure and en
dashes, the minus sign, ...), and the few of EXTRA_MARKS, less what NFKC folds to - or _ already.

The skeleton "l" is the one of I (capital i), l (small L) and 1: a character with that
skeleton (a vertical stroke: the Cyrillic palochka, the Greek capital iota) reads as I or as
L, and is written to the group "Il". The long s (NFKC: s, skeleton: f) is the one other
character that reads as two letters; it is written to the group "fs". Any other such
character stops the script, to be looked at.
"""
import re
import sys
import unicodedata

# Look-alikes that confusables.txt (14.0.0) leaves out, kept from bounce's earlier hand-made
# table: the Cyrillic komi de and qa, the Greek small chi, the dotless j, and the small
# palochka, which confusables.txt reads as a dotless i but is a stroke as tall as l.
EXTRA = {'\u0500': 'D', '\u051A': 'Q', '\u03C7': 'x', '\u0237': 'j', '\u04CF': 'l'}

# Look-alikes of the hyphen and the underscore that confusables.txt leaves out: the em dash and
# the horizontal bar (a dash between two words of a name reads as its hyphen), and the modifier
# letter low macron, a line on the baseline.
EXTRA_MARKS = {'\u2014': '-', '\u2015': '-', '\u02CD': '_'}
MARKS = '-_'

SINGLE = re.compile(r'^[A-Za-z]$')
SMALL_CAPITAL = re.compile(r'^LATIN (?:LETTER SMALL CAPITAL|CAPITAL LETTER SMALL CAPITAL) ([A-Z])$')
NEGATIVE = re.compile(r'^NEGATIVE (?:CIRCLED|SQUARED) LATIN CAPITAL LETTER ([A-Z])$')


def named_letters():
    """The characters that read as a Latin letter by their names: small capitals, the kra, negative circled and squared capitals."""
    named = {}
    for cp in range(0x80, 0x110000):
        ch = chr(cp)
        name = unicodedata.name(ch, '')
        m = SMALL_CAPITAL.match(name) or NEGATIVE.match(name)
        if m:
            named[ch] = m.group(1)
        elif name == 'LATIN SMALL LETTER KRA':
            named[ch] = 'K'
    return named


def main(path):
    version = None
    skeleton = {}
    with open(path, encoding='utf-8-sig') as f:
        for raw in f:
            m = re.match(r'^# Version: (\S+)', raw)
            if m:
                version = m.group(1)
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            source, target = (''.join(chr(int(cp, 16)) for cp in field.split()) for field in line.split(';')[:2])
            if len(source) == 1:
                skeleton[source] = target
    if version != unicodedata.unidata_version:
        sys.exit(f'{path} is of Unicode {version}, this Python of {unicodedata.unidata_version}: use the same version')
    named = named_letters()
    # A skeleton that is not a letter but is the one of a named letter (the small capital M's is
    # the turned w, which the Cyrillic em shares) reads as that letter.
    by_skeleton = {'rn': 'm'}
    for ch, letter in named.items():
        target = skeleton.get(ch, ch)
        if SINGLE.match(target) or target == 'rn':
            continue
        if by_skeleton.get(target, letter) != letter:
            sys.exit(f'the skeleton {target!r} reads as {by_skeleton[target]} and as {letter}: decide what it is')
        by_skeleton[target] = letter

    def letter_of(target):
        return target if SINGLE.match(target) else by_skeleton.get(target)

    found = {}
    for source, target in skeleton.items():
        letter = letter_of(target)
        if letter is not None and ord(source) > 0x7F:
            found[source] = letter
    for ch, letter in named.items():
        found.setdefault(ch, letter)
    found.update(EXTRA)
    for target, letter in by_skeleton.items():
        if len(target) == 1 and ord(target) > 0x7F:
            found.setdefault(target, letter)
    groups = {}
    for ch, letter in sorted(found.items()):
        nfkc = unicodedata.normalize('NFKC', ch)
        folds = SINGLE.match(nfkc) is not None
        if letter == 'l':
            group = 'Il'
        elif folds and nfkc.upper() != letter.upper():
            group = ''.join(sorted({letter.lower(), nfkc.lower()}))
            if group != 'fs':
                sys.exit(f'U+{ord(ch):04X} reads as {letter} (confusables.txt) and as {nfkc} (NFKC): decide what it is')
        elif folds:
            continue  # NFKC folds it to this letter already
        else:
            group = letter
        groups.setdefault(group, []).append(ch)
    marks = {source: target for source, target in skeleton.items() if target in MARKS and ord(source) > 0x7F}
    marks.update(EXTRA_MARKS)
    mark_groups = {}
    for ch, mark in sorted(marks.items()):
        if unicodedata.normalize('NFKC', ch) != mark:
            mark_groups.setdefault(mark, []).append(ch)
    out = sys.stdout
    out.write('// Written by scripts/look-alikes.py from Unicode\'s confusables.txt (UTS #39) and the\n')
    out.write(f'// character names of Unicode {version}: do not edit by hand, run the script again\n')
    out.write('// (docs/scanning.md, "Disguised markers").\n\n')
    out.write('/**\n')
    out.write(' * The characters outside ASCII that look like a Latin letter, by the letter they read as\n')
    out.write(' * (as confusables.txt writes it: upper or lower case), and that NFKC does not already fold to\n')
    out.write(' * it. `Il` reads as I or as l (a vertical stroke), `fs` as f or as s (the long s).\n')
    out.write(' */\n')
    out.write('export const LOOK_ALIKE_GROUPS: Readonly<Record<string, string>> = {\n')
    for group in sorted(groups, key=lambda g: (g.lower(), g)):
        chars = ''.join(f'\\u{{{ord(c):X}}}' if ord(c) > 0xFFFF else f'\\u{ord(c):04X}' for c in groups[group])
        out.write(f'  {group}: \'{chars}\',\n')
    out.write('};\n\n')
    out.write('/** The characters outside ASCII that look like the hyphen or the underscore of a name, by the one they read as. */\n')
    out.write('export const LOOK_ALIKE_MARKS: Readonly<Record<string, string>> = {\n')
    for mark in MARKS:
        chars = ''.join(f'\\u{{{ord(c):X}}}' if ord(c) > 0xFFFF else f'\\u{ord(c):04X}' for c in mark_groups[mark])
        out.write(f"  {repr(mark) if mark == '-' else mark}: '{chars}',\n")
    out.write('};\n')
    total = sum(len(v) for v in groups.values())
    marked = sum(len(v) for v in mark_groups.values())
    print(f'{total} characters in {len(groups)} groups, {marked} look-alikes of - and _', file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
