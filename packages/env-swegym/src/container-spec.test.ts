import { describe, expect, it } from 'vitest';
import { containerSpec, defaultContainerLimits } from './container-spec.js';

const diskBytes = 64 * 1024 ** 2;
const spec = containerSpec({
  image: 'example/image:1',
  labels: { 'harness-s.run': 'test' },
  limits: { ...defaultContainerLimits, diskBytes },
  repoPath: '/testbed',
  volumes: ['/data', '/testbed'],
});

describe('containerSpec', () => {
  it('drops every capability, forbids gaining any, and gives no network', () => {
    expect(spec.HostConfig?.CapDrop).toEqual(['ALL']);
    expect(spec.HostConfig?.CapAdd ?? []).toEqual([]);
    expect(spec.HostConfig?.Privileged ?? false).toBe(false);
    expect(spec.HostConfig?.SecurityOpt).toEqual(['no-new-privileges']);
    expect(spec.HostConfig?.NetworkMode).toBe('none');
  });

  it('keeps the root file system read-only: what commands can write is in-memory file systems of diskBytes', () => {
    expect(spec.HostConfig?.ReadonlyRootfs).toBe(true);
    const tmpfs = spec.HostConfig?.Tmpfs ?? {};
    // The repository, the scratch directories, and every volume the image declares (no volume on this machine's disk).
    expect(Object.keys(tmpfs).sort()).toEqual(['/data', '/root', '/testbed', '/tmp', '/var/tmp']);
    for (const options of Object.values(tmpfs)) {
      expect(options.split(',')).toEqual(expect.arrayContaining(['nosuid', 'nodev', `size=${diskBytes}`]));
    }
    expect(spec.HostConfig?.ShmSize).toBeLessThanOrEqual(diskBytes);
    expect(spec.HostConfig?.LogConfig?.Type).toBe('none');
  });
});
