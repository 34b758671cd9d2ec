/**
 * Whether the Docker integration tests can run: a daemon that answers and the embedded image
 * (built by .ci/docker.sh). Outside CI they skip with the reason printed; with CI=true they run
 * anyway and fail.
 */
import { dockerAvailable, defaultDockerClient, imageExists } from '../docker-provider.js';
import { embeddedImageName } from '../embedded-repos.js';

/** CI=true (or any value but false/0): integration tests must run. */
export const inCi = (): boolean => !['', 'false', '0'].includes(process.env['CI'] ?? '');

/** True when the Docker tests run; prints why when they are skipped. */
export async function dockerTestsEnabled(): Promise<boolean> {
  const docker = defaultDockerClient();
  let reason: string | null = null;
  if (!(await dockerAvailable(docker))) reason = 'no Docker daemon answers (start one with .ci/docker.sh)';
  else if (!(await imageExists(docker, embeddedImageName()))) reason = `image ${embeddedImageName()} is missing (build it with .ci/docker.sh)`;
  if (reason && !inCi()) {
    console.log(`skipping the Docker integration tests: ${reason}`);
    return false;
  }
  return true;
}
