// `npm run harness-s`: the built command line, or a one-line hint when it, or a package it uses, has
// not been built yet.
import { existsSync } from 'node:fs';

const hint = (what) => {
  process.stderr.write(
    `harness-s is not built yet (${what}): run \`npm run build\` first (\`npm start\` builds and runs a reproduction)\n`,
  );
  process.exit(2);
};

const cli = new URL('./dist/cli.js', import.meta.url);
if (!existsSync(cli)) hint('tools/dist/cli.js is missing');
try {
  await import(cli.href);
} catch (error) {
  // A workspace package whose build is missing: Node cannot find its entry file.
  const missing = /[\\/](@harness-s[\\/][^\\/]+)[\\/]dist[\\/]/.exec(error?.message ?? '');
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && missing) hint(`${missing[1]} has no dist`);
  throw error;
}
