const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML and SVG content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => entities[character] ?? character);

/** A number for SVG coordinates: short, and never `NaN`. */
export const coordinate = (value: number): string =>
  Number.isFinite(value) ? String(Math.round(value * 10) / 10) : '0';

/** A class-safe slug of a name (`harness-s` -> `harness-s`, `v 1/2` -> `v-1-2`). */
export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
