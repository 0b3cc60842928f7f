// The document the benchmark refines: a heading and `paragraphs` sentences (about 100 bytes each).
export function document(paragraphs) {
  const out = ['# Design notes', ''];
  for (let i = 0; i < paragraphs; i++)
    out.push(`Paragraph ${i} explains how part ${i} of the system works, what it depends on, and why it was built this way.`, '');
  return out.join('\n');
}
