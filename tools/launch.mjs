// `npm run harness-s`: the built command line, or a one-line hint when it has not been built yet.
import { existsSync } from 'node:fs';

const cli = new URL('./dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'harness-s is not built yet: run `npm run build` first (`npm start` builds and runs a reproduction)\n',
  );
  process.exit(2);
}
await import(cli.href);
