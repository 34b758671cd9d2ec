import type { Database } from 'better-sqlite3';

/** An error an API answers with: an HTTP-like status and a message, as AppWorld's APIs do. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The text an agent sees, in AppWorld's shape. */
  get responseText(): string {
    return `Response status code is ${this.status}: {"message": ${JSON.stringify(this.message)}}`;
  }
}

/** Parameter types as the API docs name them. */
export type ParameterType = 'string' | 'integer' | 'number' | 'boolean' | 'list[string]' | 'list[integer]' | 'any';

/** One parameter of an API, with what the docs show and what the validator enforces. */
export interface ParameterSpec {
  name: string;
  type: ParameterType;
  description: string;
  /** Required parameters have no default. */
  required: boolean;
  /** Shown in the docs and applied when the parameter is left out. */
  default?: unknown;
  /** Inclusive bounds for numbers. */
  minimum?: number;
  maximum?: number;
  /** Minimum length for strings and lists. */
  minLength?: number;
  /** The allowed values of a string. */
  choices?: readonly string[];
  /** Null is accepted (and means "not given") when true. */
  nullable?: boolean;
}

/** The person and clock of the running task, which the supervisor app and timestamps need. */
export interface TaskContext {
  /** The person the agent works for. */
  supervisorId: number;
  /** The frozen time of the task, `YYYY-MM-DDTHH:MM:SS`. */
  now: string;
  /** Seeds tokens and reset codes, so runs are reproducible. */
  seed: number;
}

/** What a handler receives. */
export interface ApiCall {
  db: Database;
  task: TaskContext;
  /** Validated arguments with defaults applied. */
  args: Record<string, unknown>;
  /** The account of the access token, for APIs that take one. */
  userId: number;
  /** A fresh deterministic token or code for this session. */
  nextSecret(kind: 'token' | 'code'): string;
  /** Ends the task (supervisor.complete_task). */
  complete(answer: unknown, status: 'success' | 'fail'): void;
}

/** An API of an app: its documented signature and its implementation. */
export interface ApiDefinition {
  app: string;
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  description: string;
  /** Whether the API takes an `access_token` (added to `parameters` by `defineApp`). */
  authenticated: boolean;
  parameters: ParameterSpec[];
  /** An example of a successful response, shown as the success schema in the docs. */
  responseExample: unknown;
  handler: (call: ApiCall) => unknown;
}

/** An app: a name, a description and its APIs. */
export interface AppDefinition {
  name: string;
  description: string;
  apis: ApiDefinition[];
}

/** A parameter builder, so app files read like API docs. */
export const param = {
  required: (name: string, type: ParameterType, description: string, extra: Partial<ParameterSpec> = {}) =>
    ({ name, type, description, required: true, ...extra }) satisfies ParameterSpec,
  optional: (
    name: string,
    type: ParameterType,
    description: string,
    defaultValue: unknown,
    extra: Partial<ParameterSpec> = {},
  ) => ({ name, type, description, required: false, default: defaultValue, ...extra }) satisfies ParameterSpec,
};

/** The parameters every list API takes (AppWorld's pagination). */
export function pageParameters(sortable: readonly string[]): ParameterSpec[] {
  return [
    param.optional('page_index', 'integer', 'The index of the page to return, from 0.', 0, { minimum: 0 }),
    param.optional('page_limit', 'integer', 'The maximum number of results per page.', 5, { minimum: 1, maximum: 20 }),
    param.optional(
      'sort_by',
      'string',
      `The field to sort by, prefixed with + (ascending) or - (descending). Sortable fields: ${sortable.join(', ')}.`,
      null,
      { nullable: true, choices: sortable.flatMap((field) => [`+${field}`, `-${field}`, field]) },
    ),
  ];
}

/** An API as app files write it; `defineApp` fills in the app name and path. */
export type ApiInput = Omit<ApiDefinition, 'app' | 'path' | 'authenticated'> & {
  authenticated?: boolean;
  path?: string;
};

const accessTokenParameter = param.required(
  'access_token',
  'string',
  'The access token from login, proving who is calling.',
);

/** Builds an app: APIs are authenticated by default and get an `access_token` parameter first. */
export function defineApp(name: string, description: string, apis: readonly ApiInput[]): AppDefinition {
  return {
    name,
    description,
    apis: apis.map((api) => {
      const authenticated = api.authenticated ?? true;
      return {
        ...api,
        app: name,
        authenticated,
        path: api.path ?? `/${name}/${api.name.replaceAll('_', '-')}`,
        parameters: authenticated ? [accessTokenParameter, ...api.parameters] : api.parameters,
      };
    }),
  };
}
