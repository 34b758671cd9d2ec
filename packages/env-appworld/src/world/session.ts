import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { type ApiCall, ApiError, type TaskContext } from '../api/definition.js';
import { validateArguments } from '../api/validate.js';
import { findApi } from '../apps/index.js';
import { oneRow } from './rows.js';

/** Bytes an episode's writes may add to its database by default (16 MB). */
export const defaultMaxStoredBytes = 16 * 1024 * 1024;

/** How the task was ended by `supervisor.complete_task`. */
export interface Completion {
  answer: unknown;
  status: 'success' | 'fail';
}

/**
 * One episode's view of the world: its own database (a copy of the task's initial state), the
 * task's supervisor and clock, and the API dispatcher every code block calls through. The
 * database may grow by at most `maxStoredBytes` over the episode: a call that would take it past
 * that fails with 507 and changes nothing, so agent code cannot fill the host's memory.
 */
export class WorldSession {
  completion: Completion | null = null;
  /** API calls that reached a handler (validation failures included). */
  apiCalls = 0;
  private secrets = 0;
  /** Runs a handler in a transaction (one wrapper for the session: making one costs more than the call). */
  private readonly inTransaction: (work: () => unknown) => unknown;
  /** The database's size in pages, uncommitted changes included. */
  private readonly pageCount: () => number;
  private readonly pageBytes: number;
  /** The database's size in pages when the episode began. */
  private readonly basePages: number;

  constructor(
    readonly db: Database,
    readonly task: TaskContext,
    private readonly maxStoredBytes = defaultMaxStoredBytes,
  ) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
    const statement = db.prepare('PRAGMA page_count').pluck();
    this.pageCount = () => statement.get() as number;
    this.pageBytes = db.pragma('page_size', { simple: true }) as number;
    this.basePages = this.pageCount();
  }

  /** Bytes the episode's writes have added to its database so far (freed space is reused, not given back). */
  get storedBytes(): number {
    return (this.pageCount() - this.basePages) * this.pageBytes;
  }

  private nextSecret(kind: 'token' | 'code'): string {
    this.secrets += 1;
    const digest = createHash('sha256').update(`${this.task.seed}:${kind}:${this.secrets}`).digest();
    return kind === 'token'
      ? digest.toString('hex').slice(0, 32)
      : String(digest.readUInt32LE(0) % 1_000_000).padStart(6, '0');
  }

  /**
   * Calls `app.api` with the agent's arguments and returns the JSON-able response. Every failure
   * is an ApiError with a status; a failing call changes nothing (it runs in a transaction).
   */
  call(appName: string, apiName: string, rawArgs: unknown): unknown {
    if (this.completion) throw new ApiError(409, 'The task is already completed; no more API calls are accepted.');
    const api = findApi(appName, apiName);
    if (!api) {
      throw new ApiError(
        404,
        findApi(appName, 'login') || appName === 'supervisor' || appName === 'api_docs'
          ? `No API named '${apiName}' in the ${appName} app. See apis.api_docs.show_api_descriptions({app_name: '${appName}'}).`
          : `No app named '${appName}'. See apis.api_docs.show_app_descriptions().`,
      );
    }
    this.apiCalls += 1;
    const args = validateArguments(api, rawArgs);
    let userId = 0;
    if (api.authenticated) {
      const token = oneRow<{ user_id: number }>(
        this.db,
        'SELECT user_id FROM access_tokens WHERE token = ? AND app = ?',
        args['access_token'],
        appName,
      );
      if (!token) throw new ApiError(401, 'Invalid or expired access token. Log in to get a new one.');
      userId = token.user_id;
    }
    let completion: Completion | null = null;
    const call: ApiCall = {
      db: this.db,
      task: this.task,
      args,
      userId,
      nextSecret: (kind) => this.nextSecret(kind),
      complete: (answer, status) => {
        completion = { answer, status };
      },
    };
    const result = this.inTransaction(() => {
      const value = api.handler(call);
      if (this.storedBytes > this.maxStoredBytes) {
        throw new ApiError(
          507,
          `Storage limit reached: an episode may add at most ${Math.round(this.maxStoredBytes / 104857.6) / 10} MB of data, and this call would go past it; nothing was changed.`,
        );
      }
      return value;
    });
    // Only a call that went through ends the task.
    if (completion) this.completion = completion;
    return result === undefined ? null : result;
  }
}
