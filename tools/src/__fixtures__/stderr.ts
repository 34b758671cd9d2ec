/** Runs `work` with what it writes to stderr caught instead of shown, and returns that text. */
export async function captureStderr(work: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => chunks.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
  }
  return chunks.join('');
}
