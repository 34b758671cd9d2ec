import { createLocalSandboxProvider } from '@harness-s/env-swegym';
const provider = createLocalSandboxProvider();
let t = performance.now();
const s = await provider.create({});
console.log('create', performance.now() - t);
t = performance.now();
await s.prepare({ kind: 'host', hostRepo: process.argv[2]!, repoPath: '/testbed', baseCommit: process.argv[3]! });
console.log('prepare', performance.now() - t);
for (const cmd of ['true', 'echo hi', 'ls', 'git status --short']) {
  t = performance.now();
  const r = await s.exec(cmd, { timeoutMs: 10000 });
  console.log(cmd, r.exitCode, performance.now() - t, r.durationMs);
}
t = performance.now(); await s.reset(); console.log('reset', performance.now() - t);
t = performance.now(); await s.destroy(); console.log('destroy', performance.now() - t);
