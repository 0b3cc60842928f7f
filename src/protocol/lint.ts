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
// Words that put forward what to write: a proposal, a replacement, an edit, a place ("belongs in the appendix"), a choice ("I'd go with 3 retries").
const PROPOSAL =
  /\b(?:instead|replace|use|change|suggest|propose|recommend|prefer|set|cap|limit|make|require|add|remove|drop|keep|move|rename|say|write|state|split|merge|delete|allow|raise|lower|reduce|increase|switch|define|specify|mention|document|belongs? (?:in|under|on)|(?:go|opt|stick) (?:with|for))\b/i;
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
// Verbs of more thought, a check or a repair with no target, in any form: what "I recommend
// revising ...", "Consider revisiting ..." put forward.
const MORE_THOUGHT =
  /^(?:revisit|reconsider|rethink|review|re-?evaluat|revis|rework|rewrit|look|check|verify|think|fix|correct|address|improv|clarif|double-check|recheck)\w*\b/;
// An object or target that is only a judgement of what is wanted: "a sensible retry count",
// "the correct unit", "a more appropriate rate", "something reasonable", "something claimants
// will understand", "a different window". Content ("a 30 s cap", "the UTC offset") proposes.
const VAGUE_TARGET = String.raw`(?:(?:a|an|the|some)\s+(?:(?:much|far)\s+)?(?:sensible|reasonable|appropriate|suitable|proper|correct|right|better|good|valid|accurate|realistic|sane|saner|safer|different|stronger|simpler|shorter|longer|smaller|larger|bigger|higher|lower|tighter|looser|cleaner|stricter|clearer|faster|cheaper|lighter|friendlier|nicer|easier|more\s+[\w-]+|less\s+[\w-]+)(?:\s+[\w-]+){0,2}(?:\s+(?:to|for|of|in|on|at|here|there|than)\b[^.;:0-9"\u201c]*)?|something(?:\s+(?:[\w-]+\s+){0,4}[\w-]+)?)\W*$`;
// A replacement whose new text is only a direction: "Replace this with a better alerting
// approach", "swap it for something more inclusive"; "replace it with a token bucket" proposes.
// Making the passage better in general: "make this clearer", "Let's make these error messages more user-friendly".
const VAGUE_MAKE = /\bmak(?:e|es|ing)\s+(?:it|them|(?:this|that|these|those|the|our|your)(?:\s+[\w-]+){0,2})\s+(?:(?:more|less)\s+[\w-]+|\w+er)\W*$/i;
const VAGUE_REPLACEMENT = new RegExp(
  String.raw`\b(?:change|replace|rename|switch|swap|substitute|move|use|choose|pick|select|set|bump|raise|lower|increase|reduce|consider|find|adopt|define|specify|add|make|write|apply|using|choosing|picking|switching|moving|changing|replacing|adopting|making|adding|setting|finding|say|saying|put|phrase|word|recommend|suggest|propose|prefer)\s+(?:(?:[\w-]+\s+){0,3}?(?:with|to|into|for|by)\s+)?(?:another\s+(?:one|option|approach|way)\W*$|anything|${VAGUE_TARGET})`,
  'i',
);
const NOT_PROPOSING = new RegExp(
  [
    String.raw`\b(?:doesn't|doesnt|does not|didn't|didnt|did not|don't|dont|do not|isn't|isnt|is not|wasn't|aren't|are not|hasn't|haven't|won't|can't|cannot|can not|couldn't|wouldn't)\s+(?:\w+\s+)?${PROPOSAL_WORDS}\b`,
    String.raw`(?:(?<!\b(?:i|we)\s+)\b(?:will|might|may|(?:is|are)\s+(?:likely|going|bound)\s+to)|(?<!\b(?:i|we))'ll)\s+(?:[\w-]+\s+){0,5}?${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:proposal|plan|decision|idea|suggestion|attempt|choice|intent|push)\s+to\s+${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:recommend|suggest|propose|advise|consider)\w*\s+(?:that\s+)?(?:(?:the\s+\w+|we|you|they|someone)\s+)?(?=${MORE_THOUGHT.source.slice(1)}(?!\s+(?:it|this|that|them)?\s*(?:to|with|as|into)\b))`,
    String.raw`\b(?:the|a|an|this|that|these|those|your|my|our|their|his|her|its|any|each|every|some|no)\s+(?:(?!(?:${AUXILIARY_VERB}|be|might|to|not|and|or|with|for|of|in|on|at|by|from|as|into|than)\b)[\w-]+\s+){0,2}(?!instead\b|belongs?\b)${PROPOSAL_WORDS}\b`,
    String.raw`\b(?:change|replace|rename|switch|move|use)\s+(?:this|it|that|these|them|something(?: else)?|another one)\b(?!\s+(?:to|with|into|by|for)\b)`,
    VAGUE_MAKE.source,
    VAGUE_REPLACEMENT.source,
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
// revisited", "needs a closer look", "Someone should look at this again", "weigh in", "Please
// check the minutes again", "double-check".
const HEDGE =
  /\b(?:reconsider(?:ed|ing)?|revisit(?:ed|ing)?|rethink(?:ing)?|re-?evaluat(?:e|ed|ing)|review(?:ed|ing)?|discuss(?:ed)?|investigat(?:e|ed)|look(?:ed)? (?:into|at|again)|(?:double|re)-?check\w*|check\w*\b[^.!?]{0,40}?\bagain|go(?:ne)? over (?:it|this|that) again|(?:(?:take|have|give it)\s+)?(?:another|a(?: closer| second)?) look|weigh in|chime in|(?:talk|speak)\s+(?:to|with)|consult|check\s+with|loop\s+in|sync\s+(?:up\s+)?with|run\s+(?:it|this|that)\s+(?:by|past)|think (?:\w+ )?(?:about|through)|think harder|more thought|not sure|unsure|not convinced|doubt)\b/i;
const ASKED = /\b(?:what|which|how|why|whether)\b[^.!?]*\b(?:should|must)\b/i;
// A demand with a direction but no target proposes nothing: "This should be clearer", "The
// design must be more robust", "should be improved". A comparative with its target ("should
// be lower than 5") or any other complement ("should be 7 days", "opt-in") still proposes.
const VAGUE_DEMAND =
  /\b(?:should|must|ought to|needs? to)\s+(?:(?:really|also|definitely|first)\s+)?be\s+(?:made\s+)?(?:(?:much|far|a lot|a bit)\s+)?(?:(?:more|less)\s+[\w-]+|\w+er|improved|fixed|addressed|clarified|reworked|rewritten|revised|tightened|simplified|cleaned up|verified|checked|confirmed|validated|double-checked|reconciled|corrected|updated|looked at|handled (?:differently|elsewhere|somewhere else|better))(?:,?\s+(?:and|or)\s+(?:more\s+|less\s+)?[\w-]+)*(?:\s+(?:to\s+be\s+[\w-]+|for\s+(?:accuracy|clarity|correctness|consistency|tone|readability)|(?:before|after|by|prior to|with|against)\s+[^.;]*|asap|soon|first|now|urgently))?\W*$/i;
// A demand that points back at the facts or the passage: "The minute should reflect what was
// actually decided", "The plan should account for this".
const VAGUE_DUTY =
  /\b(?:should|must|needs? to)\s+(?:reflect|match|follow|mirror|account for|address|handle|cover|consider|deal with|take (?:this|that|it) into account)\s+(?:what|reality|the\s+(?:actual|real|rest|other|facts?)|actual|this|that|it|these|those)\b(?:\s+\w+){0,6}\W*$/i;
// A manner with no target: "Wouldn't this be better handled somewhere else?", "Ought to be
// done differently"; "handled in the gateway" names the place and proposes.
const VAGUE_MANNER =
  /\b(?:handled?|done|do|written|write|worded|phrased|framed|treated|treat|structured|approached|solved|organi[sz]ed|placed|put)\s+(?:(?:it|(?:this|that|these|those|the)(?:\s+[\w-]+){0,2})\s+)?(?:differently|elsewhere|somewhere else|some other way|another way|otherwise|better|(?:more|less)\s+\w+ly|\w+ly\s+enough)\b/i;
// A verdict that blocks without saying what to write: "should not ship", "must not be merged".
const NO_GO =
  /\b(?:should|must)(?:n't|\s+not|\s+never)\s+(?:be\s+)?(?:ship(?:ped)?|land(?:ed)?|merge(?:d)?|release(?:d)?|approve(?:d)?|publish(?:ed)?|go\s+(?:in|out|live|ahead)|happen|pass(?:ed)?|accept(?:ed)?)\b/i;
// must as a conclusion about the text, not a demand: "One of the two must be wrong", "This must be a typo".
const CONCLUSION = /\bmust\s+(?:be|have\s+been)\s+(?:wrong|incorrect|mistaken|outdated|stale|broken|off|an?\s+(?:typo|mistake|error|bug|oversight))\b/i;
// should asked about in doubt ("Should we really be committing to this timeline?", "Must
// this even exist?"): no proposal. "Should this be opt-in?" suggests.
const DOUBTING_QUESTION = /\b(?:should|must)\b[^?]*\b(?:really|even|actually|seriously|honestly|truly)\b[^?]*\?/i;
// An indefinite subject, perhaps with a short qualifier, before should or must: "Someone
// from finance should ...", "anyone else must ...".
const INDEFINITE_SUBJECT = /\b(?:someone|somebody|anyone|anybody)(?: else)?(?:\s+(?:from|in|on|at)\s+(?:the\s+)?[\w-]+)?\s+(?:should|must)\b/i;
// A clause that opens in doubt or disagreement proposes nothing up to its first comma ("Not
// sure it is wise to use X here", "I have serious doubts that ...", "Hard disagree, this turns
// maintainers into gatekeepers"); what follows the comma may still ("I disagree, cap it at 3").
const DOUBT_OPENING =
  /^\W*(?:(?:i'm |i am |i'm just |i'm still )?(?:not sure|unsure|not convinced|i doubt)|i(?:'m| am) (?:worried|concerned|sceptical|skeptical|nervous|uneasy)|i (?:have|had) (?:some |serious |real |big |grave )?(?:doubts?|concerns?|reservations?)|i (?:worry|fear|disagree|object|don't (?:think|like|buy|love|agree))|i(?: am|'m)? not agree|(?:hard|strongly|respectfully) disagree|disagree)\b/i;
// Clauses: sentences, and the parts of one joined by `;`, `:` or a dash, or by a comma
// before a word that opens an imperative ("House style is British, so spell it ...").
const CLAUSE = /(?<=[.!?])\s+|\s*[;:]\s+|\s+[-\u2013\u2014]+\s+|,\s+(?=(?:so|then|just|instead|please|pls)\s)/;
// A clause that is only a value: "7 days.", "2", "`json`", "Maybe "language or library"?".
// A value asked back without an offer is disbelief ("Really? 180 days?", "800 mg every 4 hours?").
const VALUE_ONLY =
  /^(?:(?:maybe|perhaps|how about|what about|or(?: even)?)\s+(?:\d[\d.,:%]*|`[^`]+`|"[^"]+"|\u201c[^\u201d]+\u201d)(?:\s+[\p{L}]+){0,2}[.!?]?|(?:\d[\d.,:%]*|`[^`]+`|"[^"]+"|\u201c[^\u201d]+\u201d)(?:\s+[\p{L}]+){0,2}[.!]?)$/iu;
// A clause that opens on a value and has no verb names what to write: "15 min access token
// + refresh token", "Max 3 retries, then fail." ("3 retries is too many" has its verb).
const NO_VERB = `(?:\\s+(?!(?:${AUXILIARY_VERB}|seems?|looks?|feels?|means?|makes?|causes?|breaks?)\\b)\\S+)`;
const VALUE_PHRASE = new RegExp(
  `^(?:(?:maybe|perhaps|how about|what about)\\s+\\d[\\d.,:%]*\\s*[\\p{L}]*${NO_VERB}{0,12}|(?:(?:max|min|maximum|minimum|at most|at least)\\s+)?\\d[\\d.,:%]*\\s*[\\p{L}]*${NO_VERB}{0,7}(?<!\\?))$`,
  'iu',
);
// A value that would do: "A 31-day period is common for CCTV and would fit here".
const VALUE_WOULD_DO = /\d[^.;?]*\bwould\s+(?:fit|work|suffice|do|be\s+(?:better|enough|fine|safer|appropriate|sufficient|reasonable|plenty))\b/i;
// An alternative named as the one that would do, its verb left out: "That does not scale;
// self-serve signup with email verification would." (a subject of two words or more, no pronoun).
const WOULD_INSTEAD = /^\W*(?!(?:this|that|it|which|they|none|nothing|no one|nobody)\b)[\w'-]+(?:\s+[\w'-]+){1,9}\s+would(?:\s+(?:work|do|suffice))?\W*$/i;
// What is named as the norm to follow: "A week is the industry norm", "90 days is the standard".
const THE_NORM =
  /^\W*(?!(?:this|that|it|which|the (?:current|old|existing))\b)[\w'-]+(?:\s+[\w'-]+){0,4}\s+(?:is|are)\s+(?:the\s+)?(?:industry|usual|common|accepted|de facto|recommended)?\s*(?:norm|standard|convention|default|best practice)\b/i;
// A correction written as one: a clause that is only a rewrite, old and new wording of up to
// four words each on either side of one arrow ('"it's" -> "its"', `leverage → use`, `=>`; a
// chain "A -> B -> C" describes a flow), or quoted wordings on either side of one anywhere
// ('nit: `colour` -> `color`, rest of the repo is en-US'), a sed substitution
// (`s/utilise/use/`), a value set against the one it replaces ("churn was 4.2%, not 3.8%",
// '"cancelled" throughout, not "canceled"'), a value that ends the clause after a comma
// ("far too long for card auth, 10s max"), or a value given as the correct one ("The correct
// value is 4096", "the current rate is 3.1%").
const REWRITE_SIDE = String.raw`[^\s>\u2192\u21d2]+(?:\s+[^\s>\u2192\u21d2]+){0,3}`;
const VALUE = String.raw`(?:\d[\d.,]*\s*%?[\p{L}\u00b5]*|\b[\p{L}]+\d[\w.]*|\x60[^\x60]+\x60|"[^"]+"|\u201c[^\u201d]+\u201d)`;
const QUOTED = String.raw`(?:\x60[^\x60]+\x60|"[^"]+"|\u201c[^\u201d]+\u201d)`;
const CORRECTION = new RegExp(
  String.raw`^\s*${REWRITE_SIDE}\s*(?:->|=>|\u2192|\u21d2)\s*${REWRITE_SIDE}\s*$|${QUOTED}\s*(?:->|=>|\u2192|\u21d2)\s*${QUOTED}|${QUOTED}(?:\s*(?:,|and|or)\s*${QUOTED})*\s+(?:becomes?|turns? into|should (?:be|become|read))\s+${QUOTED}|(?:^|\s)s/[^/\s][^/]*/[^/]*/|${VALUE}(?:\s+[\p{L}]+){0,4},?\s+not\s+${VALUE}|,\s*(?:(?:at most|at least|max(?:imum)?|min(?:imum)?)\s+)?\d[\d.,:%]*\s*[\p{L}]*(?:\s+(?:max|min|tops|maximum|minimum|at most))?\W*$|\b(?:correct|right|actual|accurate|current)\s+(?:\w+\s+)?(?:is|are|was|were)\s+${VALUE}`,
  'u',
);
// A clause that ends on the wording it wants: 'the word wanted here is just "short."'.
const QUOTED_WORDING = /\b(?:is|be|just|simply|to|(?<!such )as|like|it|read)\s+(?:"[^"]+"|\u201c[^\u201d]+\u201d|`[^`]+`)\W*$/i;
// Words that cannot open an imperative clause: determiners, pronouns, auxiliaries and
// modals, prepositions, conjunctions, negations, number words and common sentence
// adverbs and interjections. A clause opening with another word in its base form (not
// -s, -ed, -ing or -ly) and not followed by an auxiliary is read as an imperative, so a
// proposal needs no verb list ("Expire tokens after 7 idle days", "Throw a typed error").
const NOT_IMPERATIVE = new Set(
  (
    'the a an this that these those each every all both some any no none another other such my our your their his her its ' +
    "i i'm i'd i've i'll we we're we'd we've you you're they they're he she it it's there here there's that's what which who whom whose why how when where whether " +
    'someone somebody anyone anybody everyone everybody nobody something anything everything nothing whoever whatever whichever ' +
    'is are was were be been being am do does did has have had will would can could should shall may might must ' +
    "don't doesn't didn't can't cannot won't isn't aren't wasn't weren't shouldn't wouldn't couldn't hasn't haven't " +
    'in on at for with without from to by of as about after before under over per via than into onto within between ' +
    'and but or so because if unless although though while also too not nor yes very quite rather maybe perhaps probably likely ' +
    'honestly really sadly unfortunately currently today now still again already even only hmm ok okay well nit note agreed ' +
    'pretty fairly definitely clearly surely imo imho fwiw tbh btw iirc afaik nb yeah yep nope sure thanks meh ugh oops wow ought ' +
    'bad wrong poor weird odd strange good great nice fine awkward risky unsafe vague confusing unclear missing broken redundant ' +
    'unnecessary outdated inconsistent dangerous super huge tiny same hard easy ugly messy sloppy dubious questionable misleading ' +
    'one two three four five six seven eight nine ten twenty thirty hundred thousand'
  ).split(' '),
);
// Words a clause may open with before its verb: "Please use ...", "Then drop ...", "Let's default ...".
const LEAD_IN = new Set(['please', 'pls', 'plz', 'kindly', 'just', 'then', 'instead', 'so', 'and', 'but', 'also', 'simply', "let's", 'lets']);
// An imperative whose object is only a pointer at the passage, perhaps with a direction but
// no target, proposes nothing: "Fix this.", "Redo this section", "Clean it up", "Make this
// clearer". Deleting needs no target, so "Drop this." and "Delete it." still propose.
const VAGUE_OBJECT =
  /^(?:this|it|that|these|those|them|something(?: else)?|(?:this|that|the) (?:section|part|paragraph|sentence|bit|wording|text|one))(?: (?:up|again|please|(?:more|less) [a-z]+|[a-z]+er))?$/;
const DELETION = /^(?:drop|delete|remove|cut|omit|revert)$/;
// A verb that asks for a repair or a check says what to write only with a target: "Fix
// before print", "Please verify with the aircraft manual", "Reconcile these", "Check." do not;
// "Correct it to 4.2%", "Rewrite this as a list", "Clarify that refunds take 5 days",
// 'Update the link to "/v2/docs"' do.
const REPAIR =
  /^(?:fix|correct|address|resolve|handle|sort|tidy|clean|improve|rework|revise|rewrite|redo|reword|rephrase|reconcile|verify|check|confirm|validate|review|recheck|clarify|tighten|polish|update|amend|adjust|investigate|fact-check|proofread)$/;
const REPAIR_TARGET = /\b(?:to|with|as|into|instead|that|so|by|from|using|via)\b|\d|["`\u201c]/;
// Asking to weigh something in general proposes nothing: "Consider the implications", "Think
// of the users", "Keep the trade-offs in mind"; "Consider a token bucket" and "Consider using
// ..." name what to write.
const WEIGH_VAGUELY =
  /^(?:consider|weigh|ponder|evaluate|assess|remember|think of|keep)\s+(?:(?:the|its|their|all|any|these|those|our|your)\s+)?(?:[\w-]+\s+)?(?:implications|impact|consequences|risks?|trade-?offs|edge cases|alternatives|options|ramifications|costs?|downsides|users?|customers?|readers?)\b(?:\s+(?:in mind|here|first|carefully|again|of\s+\w+(?:\s+\w+)?))*$/;
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

// Verbs that link a plural subject to what is said of it: "Calendar weeks look like a poor fit".
const LINKING = new Set('look seem feel sound appear remain become mean cause break fail'.split(' '));
// What cannot stand inside a subject: pronouns, conjunctions and relatives.
const SUBJECT_STOP = new Set(
  "i we you they he she it it's this that these those them us which who whom whose what when where why how whether if unless so because and but or nor then while although though until once than".split(
    ' ',
  ),
);

/**
 * A finite verb among the words, before a quotation (its words are someone's wording, not the
 * clause's: 'Consider replacing "we may share" with ...') and, with `stopAtFunctionWords`,
 * before a pronoun or conjunction.
 */
function finiteAhead(ahead: string[], stopAtFunctionWords: boolean): boolean {
  for (const w of ahead) {
    if (/^["'\u201c\x60]/.test(w)) return false;
    if (AUXILIARY.has(w) || (stopAtFunctionWords && LINKING.has(w))) return true;
    if (stopAtFunctionWords && SUBJECT_STOP.has(w)) return false;
  }
  return false;
}

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
  // A question is not an imperative unless it holds a value ("Cap at 3?"): "e-stop over wifi??".
  if (/\?\W*$/.test(clause) && !/\d|["`\u201c]/.test(clause)) return false;
  // A hyphenated word opens an imperative only with a verb's prefix ("Re-run", "Double-check",
  // "Opt-in"); otherwise it is a modifier: "Gluten-free claim on the fries is doubtful".
  if (
    verb.includes('-') &&
    !/^(?:re|pre|de|un|co|double|dry|opt|auto|cross|cherry|hard|soft|spell|fine|short|rate|hot|back|fact|proof|sign|log|roll)-/.test(verb)
  )
    return false;
  if (HEDGE_OPENING.test(words.slice(i).join(' '))) return false;
  // A compound subject: a noun whose head has a noun's ending, then a finite verb within four
  // words ("Cache invalidation is already a pain", "Test coverage for this module is thin").
  if (/(?:tion|sion|ment|ness|ity|ance|ence|ing|age|ure|ship|ism|cy)$/.test(next) && finiteAhead(words.slice(i + 2, i + 6), false)) return false;
  // A subject, then a finite verb: "license header is wrong", "msrv bump seems unjustified",
  // "Flat 1% head sampling will lose traces", "Allergen list for this dressing is not
  // complete", "Calendar weeks look like a poor fit". A pronoun or conjunction on the way
  // ends the search: "Make retries idempotent so it will ..." stays an imperative.
  if (finiteAhead(words.slice(i + 2, i + 8), true)) return false;
  const from = words.slice(i).join(' ');
  if (VAGUE_REPLACEMENT.test(from) || WEIGH_VAGUELY.test(from) || VAGUE_MAKE.test(from)) return false;
  // "Consider revisiting this section": the suggestion is more thought.
  if (/^(?:consider|try|suggest|recommend)$/.test(verb) && MORE_THOUGHT.test(next)) return false;
  // "Consider aligning it": a gerund whose object is only the passage.
  if (/^(?:consider|try|suggest|recommend)$/.test(verb) && /ing$/.test(next) && VAGUE_OBJECT.test(words.slice(i + 2).join(' '))) return false;
  if (VAGUE_OBJECT.test(words.slice(i + 1).join(' ')) && !DELETION.test(verb)) return false;
  if (REPAIR.test(verb)) {
    // What follows the verb, less a time ("before the protocol goes to the committee") and a
    // party to check with ("with the aircraft manual"), which are no target.
    const rest = clause
      .slice(clause.toLowerCase().indexOf(verb) + verb.length)
      .replace(/\b(?:before|after|until|once|when|prior to|ahead of)\b.*$/i, '')
      .replace(/\b(?:to (?:match|reflect|fit|agree)|accordingly|to be (?:consistent|accurate|correct))\b.*$/i, '')
      .replace(/\bwith (?:the|a|an|our|your)\s+[\w-]+(?:\s+[\w-]+){0,3}\W*$/i, '');
    if (!REPAIR_TARGET.test(rest)) return false;
  }
  // A word followed by a comma is an aside ("Hmm, ..."), not a verb.
  if (new RegExp(`^[\\s"'\u201c(*_]*(?:\\S+\\s+){${i}}\\S+,`).test(clause)) return false;
  return !/(?:[^s]s|ed|ing|ly)$/.test(verb);
}

// A proposal asked as a question: "Would dropping the cache layer work?", "How about caching
// the token?", "What if we batch the writes?", "Shouldn't this be opt-in?"; "What about the
// edge case?" and "Shouldn't we revisit this?" only ask.
// "It might be worth lowering the default page size", "worth caching": a proposal, unless what
// is worth doing is more thought ("worth revisiting").
const WORTH = /\bworth\s+(?!(?:revisit|reconsider|rethink|review|look|check|discuss|investigat|think|consider)\w*\b)[a-z]+ing\b/i;
const ASKED_AS_PROPOSAL =
  /^\W*(?:(?:(?:would|could)(?:n't)?|how about|what about)\s+[a-z]+ing\b|what if we\b|(?:shouldn't|should not|mustn't)\s+(?:this|it|that|these|we|the\s+[\w-]+)\s+(?!(?:\w+\s+)?(?:reconsider|revisit|rethink|review|discuss|look|think|check)\b)[^?]*\?)/i;
// A negative imperative's opening: "Don't add it", "Please do not drop the index". Its
// negation is the proposal, so it does not cancel the proposal word after it.
const NEGATIVE_IMPERATIVE = new RegExp(`^\\W*(?:(?:${[...LEAD_IN].join('|')})\\s+)*(?:don't|dont|do not|never)\\s+`, 'i');

/** A clause that says what to write: a proposal word, an unhedged should/must/better, an imperative, a value or a correction. */
// A suggestion word whose object was taken away as proposing nothing: "I'd suggest [making
// this wording clearer]", "Consider [revisiting this section]".
const EMPTY_SUGGESTION = /\b(?:suggest|recommend|propose|prefer|consider)\w*\s*(?:that\s+)?(?=\W*$)/gi;

function proposes(clause: string): boolean {
  if (DOUBT_OPENING.test(clause)) {
    const comma = clause.indexOf(', ');
    return comma !== -1 && proposes(clause.slice(comma + 2));
  }
  const opening = NEGATIVE_IMPERATIVE.exec(clause)?.[0] ?? '';
  const said = opening + clause.slice(opening.length).replace(NOT_PROPOSING, ' ').replace(EMPTY_SUGGESTION, ' ');
  // A proposal word inside a hyphenated compound is part of a name: "self-merge", "write-ahead log".
  const words = said.replace(/(\w)-(?=\w)/g, '$1_');
  // "Recommend the PI take another look": the suggestion word proposes more thought only.
  if (HEDGE.test(said) && !/\d|["`\u201c]/.test(clause) && !PROPOSAL.test(words.replace(/\b(?:recommend|suggest|propose|advise|consider)\w*/gi, ' ')))
    return false;
  if (PROPOSAL.test(words) || COUNTER_OFFER.test(said) || ((ASKED_AS_PROPOSAL.test(clause) || WORTH.test(clause)) && !VAGUE_REPLACEMENT.test(clause)))
    return true;
  if (
    WEAK_PROPOSAL.test(said) &&
    ![HEDGE, ASKED, INDEFINITE_SUBJECT, VAGUE_DEMAND, VAGUE_DUTY, VAGUE_MANNER, VAGUE_REPLACEMENT, NO_GO, CONCLUSION, DOUBTING_QUESTION].some((not) =>
      not.test(said),
    )
  )
    return true;
  return (
    imperative(clause) ||
    VALUE_ONLY.test(clause.trim()) ||
    VALUE_PHRASE.test(clause.trim()) ||
    VALUE_WOULD_DO.test(clause) ||
    WOULD_INSTEAD.test(clause) ||
    THE_NORM.test(clause) ||
    QUOTED_WORDING.test(clause.trim()) ||
    CORRECTION.test(clause)
  );
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
  `(?:^|,)\\s*(?:no|right|correct|yes|yeah|yep|eh|ok|okay|true|agreed|(?:${AUXILIARY_VERB})\\s+(?:it|they|we|you|he|she|there|this|that))\\s*\\?+$`,
  'i',
);
// A verb that asks for an explanation, in any of its forms (the stem then any ending):
// "explain", "clarified", "elaborating", "give more detail"; REQUESTED adds the verbs that ask
// for it only with you or someone as their subject ("Can you tell ...?", "Could you share ...?").
const EXPLAIN =
  '(?:explain|elaborat|describ|clarif|expand|justif|detail|outlin|summari[sz]|rephras|reword|unpack)\\w*|(?:spel|flesh)\\w*\\s+out|(?:giv|provid|shar|add)\\w*\\s+(?:more\\s+|some\\s+|an?\\s+)?(?:context|detail|details|example|examples|explanation)';
const REQUESTED = `${EXPLAIN}|(?:tell|shar|giv|provid|list|walk|say|comment|shed|help|point|discuss)\\w*|talk\\w*(?:\\s+\\w+)?\\s+(?:through|over|about)|go\\s+over|make a case`;
// A request put as a question asks for an open answer: "Can you explain the rollout plan?",
// "Could you or the team make a case for YAML?", "Can you rephrase?", "Could this be
// clarified?", "Would you mind expanding on ...?", "Is it possible to give more detail?"; so
// does asking whether there is an explanation ("Is there a reason for this?", "Do you have a
// source for it?") or whether an open answer is known ("Do we know how this behaves under
// load?"). "Can you confirm ...?" and "Would you mind if ...?" are yes/no.
const REQUEST = new RegExp(
  [
    `(?:can|could|would|will)\\s+(?:you|someone|somebody|anyone|anybody|we|the\\s+[\\w-]+)(?:\\s+or\\s+(?:\\S+\\s+){0,2}?\\S+)?\\s+(?:please\\s+)?(?:${REQUESTED})`,
    `(?:can|could|would|will)\\s+(?:this|it|that|these|those|the)\\b[^?]{0,60}?\\bbe\\s+(?:${EXPLAIN})`,
    `would you mind\\s+(?:${REQUESTED})`,
    `is it possible to\\s+(?:${EXPLAIN})`,
    '(?:is there|are there|do you have|do we have)\\s+(?:a|an|any|some|more)?\\s*(?:reason|rationale|source|context|example|reference|link|explanation|background|justification|evidence|data|guidance|documentation|doc|info|information|definition|policy)s?',
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
// A short question with no wh-word and no verb to ask with is a yes/no one whatever its first
// word: "Interns too?", "counts retries?", "Typo?", "Intentional?"; unless what it names is
// something to be given ("Thoughts?", "Any thoughts on naming?", "Source?", "More details?",
// "elaborate?") or a cry of confusion ("Huh?").
const SHORT_QUESTION = /^["'\u201c]?(?:[\w'-]+\s+){0,3}[\w'-]+\?+$/;
const ASKS_FOR =
  /\b(?:thoughts?|ideas?|context|details?|sources?|reasons?|rationale|meaning|explanation|examples?|background|clarification|elaboration|input|feedback|suggestions?|opinions?|definition|specifics|why|eli5|links?|refs?|references?|citations?|pointers?|huh|eh|pardon|sorry|come again|(?:explain|elaborat|clarif|expand|justif)\w*)\b|\bmore\?*$/i;
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
  // A comma inside quotes opens a clause too: 'When it says "days," does it mean ...?'.
  for (const m of q.matchAll(/,["'\u201d]?\s+|\b(?:but|and|so)\s+/gi)) found.push(q.slice(m.index + m[0].length).replace(QUESTION_LEAD_IN, ''));
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
  // "Could you clarify whether the limit applies to service accounts?" asks yes or no.
  if (opens.some((o) => REQUEST.test(o))) return /\b(?:whether|if)\b/i.test(q) && !/\b(?:what|how|why|who|where|when)\b/i.test(q);
  if (TAG_QUESTION.test(q) || opens.some((o) => YES_NO.test(o))) return true;
  if (!WH_WORD.test(q) && (DECLARATIVE.test(q) || FRAGMENT.test(q) || (SHORT_QUESTION.test(q) && !ASKS_FOR.test(q)))) return true;
  if (!ALTERNATIVE.test(q)) return false;
  // "It picks queue A or queue B, why not the least loaded one?": the question asked last is open.
  if (OPEN_QUESTION.test(opens[opens.length - 1]!) && opens.length > 1) return false;
  // "What format: JSON or YAML?" lists the answers after a colon, comma or dash.
  return !OPEN_QUESTION.test(q) || /[:,\u2013\u2014-]\s[^:,]*\b(?:or|versus|vs)\b/i.test(q);
}

/** A note's clauses; a quotation is never cut (the wording a note wants may hold a ';' or '.'). */
function clauses(body: string): string[] {
  return body.replace(/"[^"]*"|\u201c[^\u201d]*\u201d|\x60[^\x60]*\x60/g, (q) => q.replace(/[;:.!?]/g, ',')).split(CLAUSE);
}

/**
 * How much of a note the content rules read: its first 4,000 characters. A note is a
 * paragraph; some of the rules' patterns look ahead to a sentence's end, so their cost grows
 * with the square of a sentence's length, and a hostile note of a megabyte must not stall a
 * CI job (a note past this is judged on its opening, where its point is).
 */
export const CONTENT_RULES_MAX_CHARS = 4000;

function contentOf(note: Note): string {
  return noteBody(note).slice(0, CONTENT_RULES_MAX_CHARS);
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
      note.kind === 'CONTESTED' && !empty(note) && !clauses(contentOf(note)).some(proposes)
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
      return closedQuestion(contentOf(note)) ? null : '[CLARIFY] asks an open question: name two readings or the possible answers';
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
