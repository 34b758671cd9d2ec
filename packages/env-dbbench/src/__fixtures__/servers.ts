/**
 * The database servers the integration tests use. Outside CI a server that does not answer skips its
 * tests with the reason printed; with CI=true the tests run anyway and fail.
 */
import { closeMysql, connectMysql } from '../mysql-client.js';
import { connectPostgres } from '../postgres-client.js';

export const postgresTestUrl = process.env['HARNESS_S_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const mysqlTestUrl = process.env['HARNESS_S_TEST_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306/test';

/** Why the server at `url` cannot be used, or null when it answers. */
async function unreachableReason(url: string): Promise<string | null> {
  try {
    if (url.startsWith('mysql')) await closeMysql(await connectMysql({ url, connectTimeoutMs: 3000 }));
    else await (await connectPostgres({ url, applicationName: 'hs_dbbench_probe', connectTimeoutMs: 3000 })).end();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** CI=true (or any value but false/0): integration tests must run. */
const inCi = (): boolean => !['', 'false', '0'].includes(process.env['CI'] ?? '');

export interface TestServer {
  name: 'PostgreSQL' | 'MariaDB';
  url: string;
  /** False when the tests of this server are skipped. */
  available: boolean;
}

/** Both servers, each with whether its tests run. */
export async function testServers(): Promise<TestServer[]> {
  const servers: Array<Omit<TestServer, 'available'>> = [
    { name: 'PostgreSQL', url: postgresTestUrl },
    { name: 'MariaDB', url: mysqlTestUrl },
  ];
  return Promise.all(
    servers.map(async (server) => {
      const reason = await unreachableReason(server.url);
      if (reason && !inCi()) {
        console.log(`skipping the ${server.name} integration tests: ${reason}`);
        return { ...server, available: false };
      }
      return { ...server, available: true };
    }),
  );
}
