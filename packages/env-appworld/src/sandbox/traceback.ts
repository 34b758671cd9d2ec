/** The file name code blocks run under, as shown in tracebacks. */
export const codeFileName = '<code>';

/** What is known of an error thrown in a code block. */
export interface ThrownError {
  name: string;
  message: string;
  stack: string;
}

/**
 * Code blocks run with one blank line in front: QuickJS leaves the line number out of stack
 * frames on a script's first line, so shifting every line down keeps them all numbered.
 */
export const lineOffset = 1;

/** The code block's frames named in a QuickJS stack, outermost first, as (function, line). */
function framesOf(stack: string): Array<{ functionName: string; line: number | null }> {
  const frames: Array<{ functionName: string; line: number | null }> = [];
  const pattern = /at (?:([^\s(]+) \()?<code>(?::(\d+))?/g;
  for (let match = pattern.exec(stack); match; match = pattern.exec(stack)) {
    const name = match[1];
    const line = match[2] === undefined ? null : Number(match[2]) - lineOffset;
    frames.push({ functionName: !name || name === '<eval>' ? '<module>' : name, line });
  }
  return frames.reverse();
}

/**
 * An error as AppWorld shows it: `Execution failed. Traceback:`, the frames with their source
 * lines, then `Exception: ...` for API errors (`Response status code is 422: {...}`) or the
 * error's own name (`TypeError: ...`) for anything else.
 */
export function formatTraceback(error: ThrownError, code: string): string {
  const lines = code.split('\n');
  const frame = ({ functionName, line }: { functionName: string; line: number | null }): string => {
    if (line === null) return `  File "${codeFileName}", in ${functionName}`;
    const source = (lines[line - 1] ?? '').trim();
    return `  File "${codeFileName}", line ${line}, in ${functionName}${source ? `\n    ${source}` : ''}`;
  };
  // Repeated frames (deep recursion) are shown once with a count, as Python does.
  const body: string[] = [];
  let previous = '';
  let repeats = 0;
  for (const text of framesOf(error.stack).map(frame)) {
    if (text === previous) {
      repeats += 1;
      continue;
    }
    if (repeats > 0) body.push(`  [Previous line repeated ${repeats} more times]`);
    body.push(text);
    previous = text;
    repeats = 0;
  }
  if (repeats > 0) body.push(`  [Previous line repeated ${repeats} more times]`);
  const label = error.name === 'ApiError' ? 'Exception' : error.name || 'Error';
  return ['Execution failed. Traceback:', ...body.slice(-10), `${label}: ${error.message}`].join('\n');
}
