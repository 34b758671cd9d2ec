/**
 * Starts one SWE-Gym container with the run label given as the first argument, prints its id and
 * waits: the cleanup test kills this process with SIGKILL and checks what is left.
 */
import { containerLabels } from '../container-spec.js';
import { createDockerSandboxProvider } from '../docker-provider.js';
import { embeddedImageName } from '../embedded-repos.js';

const provider = createDockerSandboxProvider();
const sandbox = await provider.create({ image: embeddedImageName(), labels: containerLabels(process.argv[2] ?? 'hold') });
process.stdout.write(`ready ${sandbox.id}\n`);
setInterval(() => undefined, 60_000);
