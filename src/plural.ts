/** `1 note`, `2 notes`, `1 retry`, `3 retries`: a count and its noun, in every line bounce prints. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
