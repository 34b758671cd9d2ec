import { ConfigError, InfrastructureError } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl, redactUrl, serverAddress } from './database-url.js';
import { createDbbenchEnvironment } from './environment.js';

describe('parseDatabaseUrl', () => {
  it('reads the embedded engine, in memory or on a folder', () => {
    expect(parseDatabaseUrl('pglite:')).toEqual({ engine: 'pglite' });
    expect(parseDatabaseUrl('pglite:/var/tmp/dbbench')).toEqual({ engine: 'pglite', dataDir: '/var/tmp/dbbench' });
    expect(parseDatabaseUrl('pglite:relative/folder')).toMatchObject({ engine: 'pglite' });
    expect(
      parseDatabaseUrl('pglite:relative/folder').engine === 'pglite' && parseDatabaseUrl('pglite:relative/folder'),
    ).toMatchObject({
      dataDir: expect.stringMatching(/^\/.*relative\/folder$/),
    });
  });

  it('reads server URLs of both families, under either scheme name', () => {
    expect(parseDatabaseUrl('postgres://u@h:5432/db')).toEqual({ engine: 'postgres', url: 'postgres://u@h:5432/db' });
    expect(parseDatabaseUrl('postgresql://u@h/db').engine).toBe('postgres');
    expect(parseDatabaseUrl('mysql://root@127.0.0.1:3306/test').engine).toBe('mysql');
    expect(parseDatabaseUrl('mariadb://root@127.0.0.1/test').engine).toBe('mysql');
  });

  it('refuses anything else with the accepted forms, never echoing a password', () => {
    expect(() => parseDatabaseUrl('sqlite:///x.db')).toThrow(
      /unknown database scheme 'sqlite:'.*pglite:.*postgres:\/\/.*mysql:\/\//,
    );
    expect(() => parseDatabaseUrl('localhost:5432')).toThrow(ConfigError);
    expect(() => parseDatabaseUrl('not a url')).toThrow(/not a database URL/);
    expect(() => parseDatabaseUrl('postgres://user:secret@/db')).toThrow(/'postgres:\/\/user:\*\*\*@\/db' is not/);
    expect(() => parseDatabaseUrl('mysql://h')).not.toThrow();
    expect(() => parseDatabaseUrl('mysql:///test')).toThrow(/names no host/);
  });
});

describe('server URLs', () => {
  it('hides passwords and fills in default ports and users', () => {
    expect(redactUrl('postgres://user:secret@h:5432/db')).toBe('postgres://user:***@h:5432/db');
    expect(redactUrl('mysql://root@h/test')).toBe('mysql://root@h/test');
    expect(serverAddress('mysql://h/test', 3306, 'root')).toEqual({
      host: 'h',
      port: 3306,
      user: 'root',
      password: '',
      database: 'test',
    });
    expect(serverAddress('postgres://a%40b:p%2Fw@[::1]:6543/x', 5432, 'postgres')).toEqual({
      host: '::1',
      port: 6543,
      user: 'a@b',
      password: 'p/w',
      database: 'x',
    });
  });

  it('stops at once, with one clear line, when the server is not there', async () => {
    for (const url of ['postgres://postgres@127.0.0.1:1/test', 'mysql://root:secret@127.0.0.1:1/test']) {
      const environment = createDbbenchEnvironment({ db: url });
      const started = performance.now();
      const error = await environment.loadTasks({ split: 'dev' }).catch((caught: unknown) => caught);
      expect(InfrastructureError.isInstance(error)).toBe(true);
      expect((error as InfrastructureError).retryable).toBe(false);
      expect((error as Error).message).toBe(`cannot reach ${redactUrl(url)}: connection refused`);
      expect(performance.now() - started).toBeLessThan(6000);
      await environment.close();
    }
  });
});
