/**
 * Note lint: each note checked against the Bounce Protocol's conformance rules
 * (BOUNCE-PROTOCOL.md "Notes" and "Where a note goes"). Pure functions of a note and the
 * text it was scanned from; the heuristics, with examples, are documented in docs/lint.md.
 */
import { withoutBom } from '../text/lines.js';
import type { Note } from './scanner.js';

export interface LintRule {
  id: string;
  /** PascalCase, for formats that show a name beside the id. */
  name: string;
  /** One line: what a breaking note lacks. */
  summary: string;
  /** How to fix a note that breaks it. */
  help: string;
  /** The complaint for a note that breaks the rule, or null when it conforms. */
  check(note: Note, source: string): string | null;
}

export interface LintProblem {
  rule: string;
  note: Note;
  message: string;
}

/** The note's words after its marker (and an emphasis closer such as the `**` of `**[CLARIFY]**`). */
export function noteBody(note: Note): string {
  return note.text
    .slice(note.kind.length + 2)
    .replace(/^[*_]+/, '')
    .trim();
}

const HAS_WORDS = /[\p{L}\p{N}]/u;
// Words that put forward what to write: a proposal, a replacement, an edit, a place ("belongs in the appendix").
const PROPOSAL =
  /\b(?:instead|replace|use|change|suggest|propose|recommend|prefer|set|cap|limit|make|require|add|remove|drop|keep|move|rename|say|write|state|split|merge|delete|allow|raise|lower|reduce|increase|switch|define|specify|mention|document|belongs? (?:in|under|on))\b/i;
// A counter-offer: "rather than", "would rather" or rather as a clause's first word (not a
// degree, "rather high"), and "why not" ("Why not a simple allowlist?").
const COUNTER_OFFER = /\brather than\b|(?:\bwould|'d)\s+rather\b|^\W*rather\b|\bwhy not\b/i;
// An auxiliary or modal verb, or its negative (with or without the apostrophe).
const AUXILIARY_VERB =
  "is|are|was|were|do|does|did|should|shall|can|could|will|would|must|may|has|have|had|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|shouldn't|can't|couldn't|won't|wouldn't|hasn't|haven't|isnt|arent|doesnt|dont|didnt|shouldnt|cant|couldnt|wont|wouldnt";
// A proposal word that proposes nothing: negated in a statement ("doesn't make sense",
// "does not add clarity", "the numbers don't add up", "infrastructure cannot keep"), predicted
// by will, might or may after a subject other than I or we ("this will make queries
// expensive"; "we'll use", "I'd make" and "we could use" still propose), the aim of a noun
// of intent ("the proposal to drop IE11 is premature"), a noun after a determiner and up to
// two modifiers ("your change", "the limit", "a customer-facing document"; a modifier is no
// auxiliary or preposition, so "the team should change" and "every role with write access"
// keep theirs, and instead and belongs are no nouns: "a read replica instead"), or with a
// vague object ("change this", "use something else", "make it clearer").
const PROPOSAL_WORDS = PROPOSAL.source.slice(2, -2);
const NOT_PROPOSING = new RegExp(
  [
    String.raw`\b(?:doesn't|doesnt|does not|didn't|didnt|did not|don't|dont|do not|isn't|isnt|is not|wasn't|aren't|are not|hasn't|haven't|won't|can't|cannot|can not|couldn't|wouldn't)\s+(?:\w+\s+)?${PROPOSAL_WORDS}\b`,
    String.raw`(?:(?<!\b(?:i|we)\s+)\b(?:will|might|may)|(?<!\b(?:i|we))'ll)\s+(?:\w+\s+)?${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:proposal|plan|decision|idea|suggestion|attempt|choice|intent|push)\s+to\s+${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:the|a|an|this|that|these|those|your|my|our|their|his|her|its|any|each|every|some|no)\s+(?:(?!(?:${AUXILIARY_VERB}|be|might|to|not|and|or|with|for|of|in|on|at|by|from|as|into|than)\b)[\w-]+\s+){0,2}(?!instead\b|belongs?\b)${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:change|replace|rename|switch|move|use)\s+(?:this|it|that|these|them|something(?: else)?|another one)\b(?!\s+(?:to|with|into|by|for)\b)`,
    String.raw`\bmake\s+(?:this|it|that|these|them)\s+(?:(?:more|less)\s+\w+|\w+er)\b`,
  ].join('|'),
  'gi',
);
// should, must, ought to and better propose unless the clause hedges them ("should
// reconsider"), asks with them ("unclear what the default should be"), gives them to an
// indefinite subject ("someone should double-check this") or gives no target ("should be
// clearer"); better only as a verdict ("is better", "better to", "a better approach would be"),
// not an adjective ("a better name"), as are other comparatives of a recommendation ("it would
// be preferable to store cents", "Wouldn't it be simpler to reuse the queue?").
const WEAK_PROPOSAL =
  /\b(?:should|must|ought to)\b|\b(?:is|be|are|it's|much|far)\s+better\b|\bbetter\s+(?:to|as|than|if)\b|\bbetter[:,]|\bbetter\s+\w+\s+would\s+be\b|(?:\bwould|'d)(?:n't)?(?:\s+it)?\s+be\s+(?:(?:much|far)\s+)?(?:preferable|ideal|simpler|safer|cleaner|clearer|easier)\s+(?:to|if)\b/i;
// Asking for more thought or another person instead of saying what to write: "should be
// revisited", "needs a closer look", "Someone should look at this again", "weigh in".
const HEDGE =
  /\b(?:reconsider(?:ed|ing)?|revisit(?:ed|ing)?|rethink(?:ing)?|re-?evaluat(?:e|ed|ing)|review(?:ed|ing)?|discuss(?:ed)?|investigat(?:e|ed)|look(?:ed)? (?:into|at|again)|(?:(?:take|have|give it)\s+)?(?:another|a(?: closer| second)?) look|weigh in|chime in|think (?:about|through)|not sure|unsure|not convinced|doubt)\b/i;
const ASKED = /\b(?:what|which|how|why|whether)\b[^.!?]*\b(?:should|must)\b/i;
// A demand with a direction but no target proposes nothing: "This should be clearer", "The
// design must be more robust", "should be improved". A comparative with its target ("should
// be lower than 5") or any other complement ("should be 7 days", "opt-in") still proposes.
const VAGUE_DEMAND =
  /\b(?:should|must|ought to)\s+(?:(?:really|also|definitely)\s+)?be\s+(?:(?:much|far|a lot|a bit)\s+)?(?:(?:more|less)\s+[\w-]+|\w+er|improved|fixed|addressed|clarified|reworked|rewritten|revised|tightened|simplified|cleaned up)\W*$/i;
// An indefinite subject, perhaps with a short qualifier, before should or must: "Someone
// from finance should ...", "anyone else must ...".
const INDEFINITE_SUBJECT = /\b(?:someone|somebody|anyone|anybody)(?: else)?(?:\s+(?:from|in|on|at)\s+(?:the\s+)?[\w-]+)?\s+(?:should|must)\b/i;
// A clause that opens in doubt proposes nothing in it ("Not sure it is wise to use X here").
const DOUBT_OPENING = /^\W*(?:i'm |i am |i'm just |i'm still )?(?:not sure|unsure|not convinced|i doubt)\b/i;
// Clauses: sentences, and the parts of one joined by `;`, `:` or a dash.
const CLAUSE = /(?<=[.!?])\s+|\s*[;:]\s+|\s+[-\u2013\u2014]+\s+/;
// A clause that is only a value: "7 days.", "2", "`json`", "Maybe "language or library"?".
const VALUE_ONLY =
  /^(?:(?:maybe|perhaps|how about|what about|or(?: even)?)\s+)?(?:\d[\d.,:%]*|`[^`]+`|"[^"]+"|\u201c[^\u201d]+\u201d)(?:\s+[\p{L}]+){0,2}[.!?]?$/iu;
// A correction written as one: a clause that is only a rewrite, old and new wording of up to
// four words each on either side of one arrow ('"it's" -> "its"', `leverage → use`, `=>`; a
// chain "A -> B -> C" describes a flow), a sed substitution (`s/utilise/use/`), or a value
// set against the one it replaces ("churn was 4.2%, not 3.8%", "`>=`, not `>`"), or given as
// the correct one ("The correct value is 4096", "the current rate is 3.1%").
const REWRITE_SIDE = String.raw`[^\s>\u2192\u21d2]+(?:\s+[^\s>\u2192\u21d2]+){0,3}`;
const VALUE = String.raw`(?:\d[\d.,]*\s*%?[\p{L}\u00b5]*|\x60[^\x60]+\x60|"[^"]+"|\u201c[^\u201d]+\u201d)`;
const CORRECTION = new RegExp(
  String.raw`^\s*${REWRITE_SIDE}\s*(?:->|=>|\u2192|\u21d2)\s*${REWRITE_SIDE}\s*$|(?:^|\s)s/[^/\s][^/]*/[^/]*/|${VALUE},?\s+not\s+${VALUE}|\b(?:correct|right|actual|accurate|current)\s+(?:\w+\s+)?(?:is|are|was|were)\s+${VALUE}`,
  'u',
);
// A clause that ends on the wording it wants: 'the word wanted here is just "short."'.
const QUOTED_WORDING = /\b(?:is|be|just|simply|to|as|like|it|read)\s+(?:"[^"]+"|\u201c[^\u201d]+\u201d|`[^`]+`)\W*$/i;
// Words that cannot open an imperative clause: determiners, pronouns, auxiliaries and
// modals, prepositions, conjunctions, negations, number words and common sentence
// adverbs and interjections. A clause opening with another word in its base form (not
// -s, -ed, -ing or -ly) and not followed by an auxiliary is read as an imperative, so a
// proposal needs no verb list ("Expire tokens after 7 idle days", "Throw a typed error").
const NOT_IMPERATIVE = new Set(
  (
    'the a an this that these those each every all both some any no none another other such my our your their his her its ' +
    "i i'm i'd i've i'll we we're we'd we've you you're they they're he she it it's there here there's that's what which who whom whose why how when where whether " +
    'someone somebody anyone anybody everyone everybody nobody something anything everything nothing ' +
    'is are was were be been being am do does did has have had will would can could should shall may might must ' +
    "don't doesn't didn't can't cannot won't isn't aren't wasn't weren't shouldn't wouldn't couldn't hasn't haven't " +
    'in on at for with without from to by of as about after before under over per via than into onto within between ' +
    'and but or so because if unless although though while also too not nor yes very quite rather maybe perhaps probably likely ' +
    'honestly really sadly unfortunately currently today now still again already even only hmm ok okay well nit note agreed ' +
    'one two three four five six seven eight nine ten twenty thirty hundred thousand'
  ).split(' '),
);
// Words a clause may open with before its verb: "Please use ...", "Then drop ...", "Let's default ...".
const LEAD_IN = new Set(['please', 'just', 'then', 'instead', 'so', 'and', 'but', 'also', 'simply', "let's", 'lets']);
// An imperative whose object is only a pointer at the passage, perhaps with a direction but
// no target, proposes nothing: "Fix this.", "Redo this section", "Clean it up", "Make this
// clearer". Deleting needs no target, so "Drop this." and "Delete it." still propose.
const VAGUE_OBJECT =
  /^(?:this|it|that|these|those|them|something(?: else)?|(?:this|that|the) (?:section|part|paragraph|sentence|bit|wording|text|one))(?: (?:up|again|please|(?:more|less) [a-z]+|[a-z]+er))?$/;
const DELETION = /^(?:drop|delete|remove|cut|omit|revert)$/;
// An imperative that asks for more thought proposes nothing: "Please reconsider this", "Let's revisit it".
const HEDGE_OPENING = new RegExp(`^${HEDGE.source}`, 'i');
// After a subject: the clause is a statement, not an imperative ("Security will not approve",
// "Port 8080 is taken", "Legal won't like this wording").
const AUXILIARY = new Set(
  (
    'is are was were will would can could should shall may might must does do did has have had seems looks feels needs gets ' +
    "isn't aren't wasn't weren't won't wouldn't can't cannot couldn't shouldn't mustn't doesn't don't didn't hasn't haven't hadn't " +
    'isnt arent wasnt werent wont wouldnt cant couldnt shouldnt doesnt dont didnt hasnt havent'
  ).split(' '),
);

/** The clause opens with a verb in its base form: an imperative, so a proposal. */
function imperative(clause: string): boolean {
  const words = clause
    .replace(/^[\s"'\u201c(*_]+/, '')
    .split(/\s+/)
    .map((w) => w.replace(/[.!?,"'\u201d)*_]+$/, '').toLowerCase());
  let i = 0;
  while (i < words.length - 1 && LEAD_IN.has(words[i]!)) i++;
  const verb = words[i] ?? '';
  const next = words[i + 1];
  if (next === undefined || !/^[a-z][a-z-]*$/.test(verb) || NOT_IMPERATIVE.has(verb) || AUXILIARY.has(next)) return false;
  if (HEDGE_OPENING.test(words.slice(i).join(' '))) return false;
  // A compound subject: a noun whose head has a noun's ending, then a finite verb within four
  // words ("Cache invalidation is already a pain", "Test coverage for this module is thin").
  if (/(?:tion|sion|ment|ness|ity|ance|ence|ing|age|ure|ship|ism|cy)$/.test(next) && words.slice(i + 2, i + 6).some((w) => AUXILIARY.has(w))) return false;
  if (VAGUE_OBJECT.test(words.slice(i + 1).join(' ')) && !DELETION.test(verb)) return false;
  // A word followed by a comma is an aside ("Hmm, ..."), not a verb.
  if (new RegExp(`^[\\s"'\u201c(*_]*(?:\\S+\\s+){${i}}\\S+,`).test(clause)) return false;
  return !/(?:[^s]s|ed|ing|ly)$/.test(verb);
}

// A negative imperative's opening: "Don't add it", "Please do not drop the index". Its
// negation is the proposal, so it does not cancel the proposal word after it.
const NEGATIVE_IMPERATIVE = new RegExp(`^\\W*(?:(?:${[...LEAD_IN].join('|')})\\s+)*(?:don't|dont|do not|never)\\s+`, 'i');

/** A clause that says what to write: a proposal word, an unhedged should/must/better, an imperative, a value or a correction. */
function proposes(clause: string): boolean {
  if (DOUBT_OPENING.test(clause)) return false;
  const opening = NEGATIVE_IMPERATIVE.exec(clause)?.[0] ?? '';
  const said = opening + clause.slice(opening.length).replace(NOT_PROPOSING, ' ');
  if (PROPOSAL.test(said) || COUNTER_OFFER.test(said)) return true;
  if (WEAK_PROPOSAL.test(said) && ![HEDGE, ASKED, INDEFINITE_SUBJECT, VAGUE_DEMAND].some((not) => not.test(said))) return true;
  return imperative(clause) || VALUE_ONLY.test(clause.trim()) || QUOTED_WORDING.test(clause.trim()) || CORRECTION.test(clause);
}

// Two labelled readings: "(A) ... (B) ...", "(1) ... (2) ..."; bare labels in order,
// "1) ... 2) ...", "a) ... b) ...", "1. ... 2. ..."; or one word numbered twice, "Reading 1:
// ... Reading 2: ...", "Option A) ... Option B) ...".
const LABELLED = new RegExp(
  [
    String.raw`\((?:[A-Za-z]|\d{1,2})\)[\s\S]*\((?:[A-Za-z]|\d{1,2})\)`,
    String.raw`(?:^|[\s:;,])(?:1[.)]|[ai]\))\s[\s\S]*[\s;,](?:2[.)]|(?:b|ii)\))\s`,
    String.raw`\b([a-z]+)\s+(?:1|a|i|one)\s*[:.)]\s[\s\S]*\b\1\s+(?:2|b|ii|two)\s*[:.)]\s`,
  ].join('|'),
  'i',
);
// Alternatives: or, versus, vs. An or that opens another question joins the things asked
// about, not answers: "how it picks a region, or what happens when that region is down".
const ALTERNATIVE = /\b(?:or(?!\s+(?:what|how|why|who|where|when)\b)|versus|vs)\b/i;
// A statement names a second reading: "I read it as X, but it could also mean Y".
const SECOND_READING = /\b(?:could|can|might|may)\s+(?:also|equally|instead)\s+(?:be|mean|refer)\b/i;
// An indirect open question, its wh-word before the or with no list between: "It is unclear
// how the token is refreshed or revoked" asks how, as "How is it refreshed or revoked?" does.
const INDIRECT_OPEN = /\b(?:what|how|why|who|where)\b[^:\u2013\u2014]*\b(?:or|versus|vs)\b/i;
// Words a question may open with before its verb: "So is it ...?", "But should we ...?".
const QUESTION_LEAD_IN = /^(?:(?:so|and|but|then|also|or|ok|okay|well|hmm|just|still)\b[\s,]*)*/i;
// A yes/no question: it opens with an auxiliary verb ("Does ...?", "isn't it ...?").
const YES_NO = new RegExp(`^["'\u201c]?(?:${AUXILIARY_VERB})\\b`, 'i');
// A tag question: "This can be closed now, no?", "..., right?", "..., isn't it?", or the tag
// asked on its own after a statement: "I think the cap resets monthly. Correct?".
const TAG_QUESTION = new RegExp(
  `(?:^|,)\\s*(?:no|right|correct|yes|ok|okay|true|agreed|(?:${AUXILIARY_VERB})\\s+(?:it|they|we|you|he|she|there|this|that))\\s*\\?+$`,
  'i',
);
// A verb that asks for an explanation, in any of its forms (the stem then any ending):
// "explain", "clarified", "elaborating", "give more detail"; REQUESTED adds the verbs that ask
// for it only with you or someone as their subject ("Can you tell ...?", "Could you share ...?").
const EXPLAIN =
  '(?:explain|elaborat|describ|clarif|expand|justif|detail|outlin|summari[sz]|rephras|reword)\\w*|(?:giv|provid|shar|add)\\w*\\s+(?:more\\s+|some\\s+|an?\\s+)?(?:context|detail|details|example|examples|explanation)';
const REQUESTED = `${EXPLAIN}|(?:tell|shar|giv|provid|list|walk|say|comment|shed|help|point)\\w*|make a case`;
// A request put as a question asks for an open answer: "Can you explain the rollout plan?",
// "Could you or the team make a case for YAML?", "Can you rephrase?", "Could this be
// clarified?", "Would you mind expanding on ...?", "Is it possible to give more detail?"; so
// does asking whether there is an explanation ("Is there a reason for this?", "Do you have a
// source for it?") or whether an open answer is known ("Do we know how this behaves under
// load?"). "Can you confirm ...?" and "Would you mind if ...?" are yes/no.
const REQUEST = new RegExp(
  [
    `(?:can|could|would|will)\\s+(?:you|someone|somebody|anyone|anybody|we)(?:\\s+or\\s+(?:\\S+\\s+){0,2}?\\S+)?\\s+(?:please\\s+)?(?:${REQUESTED})`,
    `(?:can|could|would|will)\\s+(?:this|it|that|these|the\\s+\\w+)\\s+be\\s+(?:${EXPLAIN})`,
    `would you mind\\s+(?:${REQUESTED})`,
    `is it possible to\\s+(?:${EXPLAIN})`,
    '(?:is there|are there|do you have|do we have)\\s+(?:a|an|any|some|more)?\\s*(?:reason|rationale|source|context|example|reference|link|explanation|background|justification|evidence|data)s?',
    `(?:${AUXILIARY_VERB})\\b[^?]*?\\b(?:know|knows|understand|clear|idea|sure|documented|specified)\\s+(?:what|how|why|who|where|when)`,
  ]
    .map((r) => `^["'\u201c]?(?:${r})\\b`)
    .join('|'),
  'i',
);
// An open question ("What happens on error or timeout?"): its `or` joins the things asked about, not the answers.
const OPEN_QUESTION = /^["'\u201c]?(?:what|how|why|who|where|when)\b/i;
const WH_WORD = /\b(?:what|which|how|why|who|whom|whose|where|when|whether)\b/i;
// "which" asks to pick among alternatives named elsewhere in the note: "Which is intended?",
// "Which one?", "Which of the two?", "Which reading is meant?", "Which?".
const WHICH_OF_THEM = new RegExp(`^["'\u201c]?which(?:\\s+(?:[\\w-]+\\s+)?(?:one|ones|of|${AUXILIARY_VERB})\\b|\\W*$)`, 'i');
// A declarative question is a yes/no one: a statement asked ("confirm: amounts are in cents,
// not dollars?", "I assume this is per tenant?"), found by an auxiliary after its first word
// or a verb in -s after this, it or that ("this excludes weekends?"), and no wh-word anywhere.
const DECLARATIVE = new RegExp(`^\\S+(?:\\s+\\S+)*?\\s+(?:${AUXILIARY_VERB}|\\S+'(?:s|re))\\b|(?:^|\\s)(?:this|it|that)\\s+[a-z]+s\\b`, 'i');
// A verbless yes/no question of up to four words that opens with a preposition, a focusing
// word, or an adjective or participle (hyphenated, or by its ending): "Per tenant?", "Only
// for new users?", "Inclusive?", "case-sensitive?", "Signed by the client?"; and "Any
// chance ...?". A noun asks for an answer ("Meaning?", "Any thoughts?").
const FRAGMENT =
  /^["'\u201c]?any chance\b|^["'\u201c]?(?:(?:per|in|on|at|for|before|after|by|within|across|over|under|including|excluding|from|to|with|without|during|only|same|both|all|always|never|also|even|exactly)\s|[a-z]+-[a-z-]+\b|[a-z]+(?:ive|ble|ous|ic|al|ful|less|ed|ent|ant)\b)(?:\s*\S+){0,3}\?+$/i;

/**
 * The sentences of a note. A sentence ends at `.`, `!` or `?` followed by a space and a
 * capital, a digit or a quote, so "i.e." and "e.g." inside a question do not cut it.
 */
function sentences(body: string): string[] {
  return body.split(/(?<=[.!?])\s+(?=["'\u201c(`*_]?[\p{Lu}\p{N}])/u);
}

/** The questions of some sentences (each up to and including its `?`). */
function questions(said: string[]): string[] {
  return said.flatMap((s) => s.match(/[^?]*\?+/g) ?? []).map((q) => q.trim());
}

/** A statement of the note (a sentence with no question in it) offers alternatives: "X or Y.", "it could also mean Y". */
function offersAlternatives(said: string[]): boolean {
  return said.some((s) => !s.includes('?') && (SECOND_READING.test(s) || (ALTERNATIVE.test(s) && !INDIRECT_OPEN.test(s))));
}

/** Where a question's clauses open: its start and the text after each comma, "but", "and" or "so". */
function openings(q: string): string[] {
  const found = [q];
  for (const m of q.matchAll(/,\s+|\b(?:but|and|so)\s+/gi)) found.push(q.slice(m.index + m[0].length).replace(QUESTION_LEAD_IN, ''));
  return found;
}

/** The note offers its answers: labelled readings, alternatives the question lists, or a yes/no question. */
function closedQuestion(body: string): boolean {
  if (LABELLED.test(body)) return true;
  const said = sentences(body);
  // A statement offering alternatives ("UTC or local.") is closed too.
  if (!body.includes('?')) return offersAlternatives(said);
  return said.some((sentence, i) =>
    questions([sentence]).some((question) => {
      // "Under Operations? Or in the runbook?": a question that opens with "or" offers another answer.
      if (/^\W*or\b/i.test(question)) return true;
      const q = question.replace(QUESTION_LEAD_IN, '');
      // "How long? Options: not at all, 60 s, or until the next deploy.": the answers follow the question.
      if (offersAlternatives(said.slice(i + 1)) || (WHICH_OF_THEM.test(q) && offersAlternatives(said))) return true;
      return closedAsked(q);
    }),
  );
}

/** One question (after its lead-in) has a closed set of answers. */
function closedAsked(q: string): boolean {
  const opens = openings(q);
  if (opens.some((o) => REQUEST.test(o))) return false;
  if (TAG_QUESTION.test(q) || opens.some((o) => YES_NO.test(o))) return true;
  if (!WH_WORD.test(q) && (DECLARATIVE.test(q) || FRAGMENT.test(q))) return true;
  if (!ALTERNATIVE.test(q)) return false;
  // "It picks queue A or queue B, why not the least loaded one?": the question asked last is open.
  if (OPEN_QUESTION.test(opens[opens.length - 1]!) && opens.length > 1) return false;
  // "What format: JSON or YAML?" lists the answers after a colon, comma or dash.
  return !OPEN_QUESTION.test(q) || /[:,\u2013\u2014-]\s[^:,]*\b(?:or|versus|vs)\b/i.test(q);
}

function empty(note: Note): boolean {
  return !HAS_WORDS.test(noteBody(note));
}

export const LINT_RULES: readonly LintRule[] = [
  {
    id: 'empty-note',
    name: 'EmptyNote',
    summary: 'a marker with no text after it',
    help: 'say what is wrong or unclear after the marker, or delete the marker',
    check: (note) => (empty(note) ? `[${note.kind}] has no text` : null),
  },
  {
    id: 'dissent-only',
    name: 'DissentOnly',
    summary: 'a [CONTESTED] note that objects without a concrete alternative',
    help: 'add what to write instead ("Cap retries at two.", "Use 7 days instead.")',
    check: (note) =>
      note.kind === 'CONTESTED' && !empty(note) && !noteBody(note).split(CLAUSE).some(proposes)
        ? '[CONTESTED] says what is wrong but not what to write instead'
        : null,
  },
  {
    id: 'open-ended',
    name: 'OpenEndedClarify',
    summary: 'a [CLARIFY] note with neither two readings nor a question with a closed set of answers',
    help: 'spell out the readings ("(A) ... (B) ...") or ask a question with a finite answer ("... or ...?", a yes/no question)',
    check: (note) => {
      if (note.kind !== 'CLARIFY' || empty(note)) return null;
      return closedQuestion(noteBody(note)) ? null : '[CLARIFY] asks an open question: name two readings or the possible answers';
    },
  },
  {
    id: 'misplaced',
    name: 'MisplacedNote',
    summary: 'a note that is not on its own line directly below the text it refers to',
    help: 'move the note to a line of its own right below the passage it is about',
    check: (note) => {
      if (!note.canonical) return `[${note.kind}] does not start its line`;
      if (note.refersTo === null) return `[${note.kind}] has no text above it to refer to`;
      if (note.refersTo.line !== note.line - 1) return `[${note.kind}] is separated by a blank line from the text it refers to (line ${note.refersTo.line})`;
      return null;
    },
  },
  {
    id: 'marker-spelling',
    name: 'MarkerSpelling',
    summary: 'a marker not written as the canonical upper-case [KIND] with plain brackets',
    help: 'write the marker in upper case with plain brackets, e.g. [CLARIFY]',
    check: (note, source) => {
      const canonical = `[${note.kind}]`;
      if (note.disguise !== undefined) return `${canonical} is disguised by ${note.disguise}: it reads as a note, and counts as one`;
      let slashes = 0;
      while (source.charCodeAt(note.offset - 1 - slashes) === 92) slashes++;
      if (source.startsWith(canonical, note.offset) && slashes % 2 === 0) return null;
      const written = slashes % 2 === 1 ? '\\' : '';
      const end = source.indexOf(']', note.offset);
      const shown = end === -1 || end - note.offset > 40 ? source.slice(note.offset, note.offset + canonical.length) : source.slice(note.offset, end + 1);
      return `${JSON.stringify(written + shown)} is not the canonical spelling ${canonical}`;
    },
  },
];

export const LINT_RULE_IDS: readonly string[] = LINT_RULES.map((r) => r.id);

/**
 * Problems of one note, in rule order; `rules` limits the check to those ids (default: all).
 * `source` is the document the note was scanned from, a byte order mark and all: the note's
 * offsets count from after the mark, as the scanner reads it.
 */
export function lintNote(note: Note, source: string, rules: readonly string[] = LINT_RULE_IDS): LintProblem[] {
  return checkNote(note, withoutBom(source), rules);
}

function checkNote(note: Note, source: string, rules: readonly string[]): LintProblem[] {
  const out: LintProblem[] = [];
  for (const rule of LINT_RULES) {
    if (!rules.includes(rule.id)) continue;
    const message = rule.check(note, source);
    if (message !== null) out.push({ rule: rule.id, note, message });
  }
  return out;
}

/** Problems of every note scanned from `source`, in note order. */
export function lintNotes(notes: readonly Note[], source: string, rules: readonly string[] = LINT_RULE_IDS): LintProblem[] {
  const text = withoutBom(source);
  return notes.flatMap((n) => checkNote(n, text, rules));
}

/** Unknown rule ids, so the caller can name them with the known ones. */
export function unknownRules(ids: readonly string[]): string[] {
  return ids.filter((id) => !LINT_RULE_IDS.includes(id));
}
