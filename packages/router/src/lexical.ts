/** Words of a text for lexical retrieval: lower case, letters and digits; short words dropped, numbers kept. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter(
    (word) => word.length > 2 || /^\p{N}+$/u.test(word),
  );
}

/**
 * TF-IDF vectors over a fixed set of documents, with cosine similarity: the similar-task ranker's
 * retrieval of validation tasks close to a new task.
 */
export class LexicalIndex {
  private readonly idf = new Map<string, number>();
  private readonly vectors: Array<Map<string, number>>;

  constructor(readonly documents: readonly { id: string; text: string }[]) {
    const documentFrequency = new Map<string, number>();
    const tokenized = documents.map((document) => tokenize(document.text));
    for (const words of tokenized)
      for (const word of new Set(words)) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
    for (const [word, frequency] of documentFrequency)
      this.idf.set(word, Math.log((1 + documents.length) / (1 + frequency)) + 1);
    this.vectors = tokenized.map((words) => this.vector(words));
  }

  private vector(words: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [word, count] of counts) {
      const weight = count * (this.idf.get(word) ?? Math.log(1 + this.documents.length) + 1);
      vector.set(word, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm) || 1;
    for (const [word, weight] of vector) vector.set(word, weight / norm);
    return vector;
  }

  /** The `count` most similar documents to `text` (excluding `excludeId`), best first. */
  nearest(text: string, count: number, excludeId?: string): Array<{ id: string; similarity: number }> {
    const query = this.vector(tokenize(text));
    return this.documents
      .map((document, index) => {
        let similarity = 0;
        for (const [word, weight] of query) similarity += weight * (this.vectors[index]?.get(word) ?? 0);
        return { id: document.id, similarity };
      })
      .filter((entry) => entry.id !== excludeId)
      .sort((a, b) => b.similarity - a.similarity || a.id.localeCompare(b.id))
      .slice(0, count);
  }
}
