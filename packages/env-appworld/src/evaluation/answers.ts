/**
 * How a task's answer is compared, leniently in form and strictly in content (as AppWorld does):
 * numbers within a cent, text without case or extra spaces, lists as unordered collections (a
 * list may also be given as one comma-separated text).
 */
export type ExpectedAnswer = number | string | readonly string[];

const normalText = (value: unknown): string =>
  String(value ?? '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');

function asNumber(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^\s*\$?-?[\d,]*\.?\d+\s*$/.test(value)) return Number(value.replace(/[$,\s]/g, ''));
  return null;
}

function asList(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.map(normalText);
  if (typeof value === 'string')
    return value
      .split(/\s*,\s*/)
      .filter((item) => item !== '')
      .map(normalText);
  return null;
}

/** Whether the given answer matches the expected one, and a note for reports. */
export function compareAnswer(expected: ExpectedAnswer, given: unknown): { passed: boolean; detail: string } {
  const shown = `expected ${JSON.stringify(expected)}, got ${JSON.stringify(given)}`;
  if (given === null || given === undefined) return { passed: false, detail: `${shown} (no answer)` };
  if (typeof expected === 'number') {
    const number = asNumber(given);
    return { passed: number !== null && Math.abs(number - expected) <= 0.01, detail: shown };
  }
  if (typeof expected === 'string') return { passed: normalText(given) === normalText(expected), detail: shown };
  const list = asList(given);
  if (!list) return { passed: false, detail: shown };
  const wanted = [...expected].map(normalText).sort();
  const got = [...list].sort();
  return { passed: wanted.length === got.length && wanted.every((item, index) => item === got[index]), detail: shown };
}
