import { ApiError, type AppDefinition, defineApp, type ParameterSpec, param } from '../api/definition.js';
import { text } from '../api/helpers.js';

/** The constraints of a parameter as the docs state them. */
function constraintsOf(spec: ParameterSpec): string[] {
  const constraints: string[] = [];
  if (spec.minimum !== undefined) constraints.push(`value >= ${spec.minimum}`);
  if (spec.maximum !== undefined) constraints.push(`value <= ${spec.maximum}`);
  if (spec.minLength !== undefined) constraints.push(`length >= ${spec.minLength}`);
  if (spec.choices) constraints.push(`value in [${spec.choices.map((choice) => `'${choice}'`).join(', ')}]`);
  return constraints;
}

/** The documentation of one API, in AppWorld's shape. */
export function apiDoc(app: AppDefinition, apiName: string) {
  const api = app.apis.find((item) => item.name === apiName);
  if (!api) throw new ApiError(404, `No API named '${apiName}' in the ${app.name} app.`);
  return {
    app_name: app.name,
    api_name: api.name,
    path: api.path,
    method: api.method,
    description: api.description,
    parameters: api.parameters.map((spec) => ({
      name: spec.name,
      type: spec.type,
      required: spec.required,
      description: spec.description,
      default: spec.required ? null : (spec.default ?? null),
      constraints: constraintsOf(spec),
    })),
    response_schemas: { success: api.responseExample, failure: { message: 'string' } },
  };
}

/** `api_docs`: what apps exist, what APIs each has, and each API's full documentation. */
export function apiDocsApp(apps: () => readonly AppDefinition[]): AppDefinition {
  const appNamed = (name: string): AppDefinition => {
    const app = apps().find((item) => item.name === name);
    if (!app) throw new ApiError(404, `No app named '${name}'. See show_app_descriptions.`);
    return app;
  };
  return defineApp('api_docs', 'Documentation of every app and API.', [
    {
      name: 'show_app_descriptions',
      method: 'GET',
      description: 'List the apps with a short description of each.',
      authenticated: false,
      parameters: [],
      responseExample: [{ name: 'string', description: 'string' }],
      handler: () => apps().map((app) => ({ name: app.name, description: app.description })),
    },
    {
      name: 'show_api_descriptions',
      method: 'GET',
      description: 'List the APIs of one app with a short description of each.',
      authenticated: false,
      parameters: [param.required('app_name', 'string', 'The name of the app.')],
      responseExample: [{ name: 'string', description: 'string' }],
      handler: (call) =>
        appNamed(text(call.args, 'app_name')).apis.map((api) => ({ name: api.name, description: api.description })),
    },
    {
      name: 'show_api_doc',
      method: 'GET',
      description:
        'Show the full documentation of one API: parameters with types, defaults and constraints, and response schemas.',
      authenticated: false,
      parameters: [
        param.required('app_name', 'string', 'The name of the app.'),
        param.required('api_name', 'string', 'The name of the API.'),
      ],
      responseExample: {
        app_name: 'string',
        api_name: 'string',
        path: 'string',
        method: 'string',
        description: 'string',
        parameters: [
          {
            name: 'string',
            type: 'string',
            required: true,
            description: 'string',
            default: null,
            constraints: ['string'],
          },
        ],
        response_schemas: { success: {}, failure: { message: 'string' } },
      },
      handler: (call) => apiDoc(appNamed(text(call.args, 'app_name')), text(call.args, 'api_name')),
    },
  ]);
}
