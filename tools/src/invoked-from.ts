/**
 * The folder the user ran `npm run harness-s -- ...` from. npm runs a script in the folder of the
 * package.json that holds it (the repository's root) and says where it was run from in `INIT_CWD`;
 * the command line moves there, so that the paths the user typed (`--out`, `--pool`, the plug-ins of
 * `HARNESS_S_PLUGINS`) are read from where they were typed. Undefined for any other invocation
 * (`node tools/dist/cli.js`, `npx harness-s`, or another npm script such as `npm start`), whose
 * working folder is already the right one.
 */
export function invokedFrom(variables: NodeJS.ProcessEnv = process.env): string | undefined {
  return variables['npm_lifecycle_event'] === 'harness-s' ? variables['INIT_CWD'] || undefined : undefined;
}
