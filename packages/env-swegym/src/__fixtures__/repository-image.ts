/**
 * A throwaway image that holds a repository at /testbed, as SWE-bench images do: made from the
 * embedded image by committing a container into which a repository was copied, with what an
 * install leaves behind (an ignored build product, readable by its owner only) and a declared
 * volume. No registry is needed. Tests remove it with `removeRepositoryImage`.
 */
import type Docker from 'dockerode';
import { execa } from 'execa';
import { embeddedImageName } from '../embedded-repos.js';

export interface RepositoryImageOptions {
  /** A git repository on this machine, copied to /testbed. */
  hostRepo: string;
  /** The image's name, `repository:tag`. */
  name: string;
  /** Labels of the container the image is made from, so a test's cleanup finds it. */
  labels: Record<string, string>;
  /** Size of the build product `/testbed/build/ext.so`. */
  buildBytes: number;
}

/** The volume the image declares, as some images do. */
export const declaredVolume = '/data';

/** Makes the image and returns its name. */
export async function makeRepositoryImage(docker: Docker, options: RepositoryImageOptions): Promise<string> {
  const install = [
    'cd /testbed',
    'mkdir -p build',
    `head -c ${options.buildBytes} /dev/urandom > build/ext.so`,
    'chmod 600 build/ext.so',
    'echo build/ >> .git/info/exclude',
    `mkdir -p ${declaredVolume}`,
  ].join(' && ');
  const helper = await docker.createContainer({
    Image: embeddedImageName(),
    Cmd: ['/bin/sh', '-c', install],
    Labels: options.labels,
    HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'none', Config: {} } },
  });
  try {
    // `./x` in the repository becomes `testbed/x` at the container's root.
    const tar = execa('tar', ['-C', options.hostRepo, '--transform', 's,^\\.,testbed,S', '-cf', '-', '.'], {
      buffer: { stdout: false },
    });
    await helper.putArchive(tar.stdout, { path: '/' });
    await tar;
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`installing the repository image exited ${StatusCode}`);
    const [repo, tag] = options.name.split(':');
    await helper.commit({ repo, tag, changes: `VOLUME ${declaredVolume}` });
    return options.name;
  } finally {
    await helper.remove({ force: true, v: true });
  }
}

/** Removes the image, if it exists. */
export async function removeRepositoryImage(docker: Docker, name: string): Promise<void> {
  try {
    await docker.getImage(name).remove({ force: true });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
}
