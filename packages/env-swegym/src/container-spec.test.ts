import { describe, expect, it } from 'vitest';
import { containerSpec, defaultContainerLimits, parseContainerUser } from './container-spec.js';

const diskBytes = 64 * 1024 ** 2;
const spec = containerSpec({
  image: 'example/image:1',
  labels: { 'harness-s.run': 'test' },
  limits: { ...defaultContainerLimits, diskBytes },
  repoPath: '/testbed',
  volumes: ['/data', '/testbed'],
  user: '65534:65534',
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

describe('the user of a container', () => {
  it('owns its repository, its home and the volumes', () => {
    expect(spec.User).toBe('65534:65534');
    expect(spec.Env).toEqual(['HOME=/root']);
    const tmpfs = spec.HostConfig?.Tmpfs ?? {};
    for (const path of ['/testbed', '/root', '/data']) expect(tmpfs[path]).toMatch(/,uid=65534,gid=65534$/);
    for (const path of ['/tmp', '/var/tmp']) expect(tmpfs[path]).not.toMatch(/uid=/);
  });

  it('may be another uid:gid, and nothing else', () => {
    const root = containerSpec({ image: 'i', labels: {}, limits: defaultContainerLimits, repoPath: '/r', user: '0:0' });
    expect(root.User).toBe('0:0');
    expect(root.HostConfig?.Tmpfs?.['/r']).toMatch(/,uid=0,gid=0$/);
    expect(() => parseContainerUser('agent')).toThrow(/container user 'agent': give it as uid:gid in numbers/);
    // Without one, the image's user, and file systems as the daemon makes them.
    const image = containerSpec({ image: 'i', labels: {}, limits: defaultContainerLimits, repoPath: '/r' });
    expect(image.User).toBeUndefined();
    expect(image.HostConfig?.Tmpfs?.['/r']).not.toMatch(/uid=/);
  });
});
