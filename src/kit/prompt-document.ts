const DOC_END = /^<<<END-BOUNCE-DOCUMENT-([0-9a-f]+)>>>$/gm;

/**
 * The document of a pass's prompt: the frame that the last closing delimiter line ends.
 * Context files come before it and may hold lines that look like delimiters; the document
 * cannot hold its own frame's nonce. Empty when the prompt frames no document.
 */
export function documentIn(prompt: string): string {
  const end = [...prompt.matchAll(DOC_END)].at(-1);
  if (!end) return '';
  const open = `<<<BOUNCE-DOCUMENT-${end[1]}>>>\n`;
  const start = prompt.indexOf(open);
  if (start === -1 || start + open.length > end.index) return '';
  return prompt.slice(start + open.length, end.index).replace(/\n$/, '');
}
