import { escapeHtml } from './html.js';
import { reportCss, reportScript } from './style.js';

/**
 * A report page as one self-contained document: inline style and script, and a content security
 * policy that lets nothing in from elsewhere. `body` goes between the opening and closing tags.
 */
export function documentHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${reportCss}</style>
</head>
<body>
${body}
<script>${reportScript}</script>
</body>
</html>
`;
}
