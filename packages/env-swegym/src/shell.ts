/** Quotes one word for a POSIX shell: safe words stay bare, everything else goes in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** A command line from words, each quoted for the shell. */
export const shellJoin = (words: readonly string[]): string => words.map(shellQuote).join(' ');

/**
 * A quoted here-document delimiter that does not occur in `body`, so the body is passed to the
 * command verbatim (no expansion, no early end).
 */
export function heredocDelimiter(body: string, base = 'EOF_HARNESS_S'): string {
  let delimiter = base;
  for (let counter = 1; body.split('\n').includes(delimiter); counter += 1) delimiter = `${base}_${counter}`;
  return delimiter;
}
