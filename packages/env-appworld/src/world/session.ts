import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { type ApiCall, ApiError, type TaskContext } from '../api/definition.js';
import { validateArguments } from '../api/validate.js';
import { findApi } from '../apps/index.js';
import { oneRow } from './rows.js';

/** How the task was ended by `supervisor.complete_task`. */
export interface Completion {
  answer: unknown;
  status: 'success' | 'fail';
}

/**
 * One episode's view of the world: its own database (a copy of the task's initial state), the
 * task's supervisor and clock, and the API dispatcher every code block calls through.
 */
export class WorldSession {
  completion: Completion | null = null;
  /** API calls that reached a handler (validation failures included). */
  apiCalls = 0;
  private secrets = 0;
  /** Runs a handler in a transaction (one wrapper for the session: making one costs more than the call). */
  private readonly inTransaction: (work: () => unknown) => unknown;

  constructor(
    readonly db: Database,
    readonly task: TaskContext,
  ) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
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
    const call: ApiCall = {
      db: this.db,
      task: this.task,
      args,
      userId,
      nextSecret: (kind) => this.nextSecret(kind),
      complete: (answer, status) => {
        this.completion = { answer, status };
      },
    };
    const result = this.inTransaction(() => api.handler(call));
    return result === undefined ? null : result;
  }
}
