const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Every piece of document or run text goes through here before it reaches the page. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

/** `\[(CONTESTED|CLARIFY|...)\]`, case-insensitive, from the run's configured markers. */
export function noteLinePattern(markers: readonly string[]): RegExp {
  const names = new Set(['CONTESTED', 'CLARIFY']);
  for (const m of markers) {
    const name = m.replace(/^\[|\]$/g, '').trim();
    if (name) names.add(name.toUpperCase());
  }
  const alt = [...names].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`\\[(${alt})\\]`, 'i');
}
