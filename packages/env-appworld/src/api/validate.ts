import { type ApiDefinition, ApiError, type ParameterSpec } from './definition.js';

const invalid = (reason: string): ApiError => new ApiError(422, `Validation error: ${reason}.`);

const typeChecks: Record<ParameterSpec['type'], (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  integer: (value) => typeof value === 'number' && Number.isInteger(value),
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  'list[string]': (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
  'list[integer]': (value) =>
    Array.isArray(value) && value.every((item) => typeof item === 'number' && Number.isInteger(item)),
  any: () => true,
};

const typeNames: Record<ParameterSpec['type'], string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  'list[string]': 'a list of strings',
  'list[integer]': 'a list of integers',
  any: 'a value',
};

function checkValue(spec: ParameterSpec, value: unknown): void {
  if (!typeChecks[spec.type](value)) throw invalid(`parameter '${spec.name}' must be ${typeNames[spec.type]}`);
  if (typeof value === 'number') {
    if (spec.minimum !== undefined && value < spec.minimum)
      throw invalid(`parameter '${spec.name}' must be >= ${spec.minimum}`);
    if (spec.maximum !== undefined && value > spec.maximum)
      throw invalid(`parameter '${spec.name}' must be <= ${spec.maximum}`);
  }
  if (
    (typeof value === 'string' || Array.isArray(value)) &&
    spec.minLength !== undefined &&
    value.length < spec.minLength
  ) {
    throw invalid(`parameter '${spec.name}' must have length >= ${spec.minLength}`);
  }
  if (typeof value === 'string' && spec.choices && !spec.choices.includes(value)) {
    throw invalid(`parameter '${spec.name}' must be one of ${spec.choices.map((choice) => `'${choice}'`).join(', ')}`);
  }
}

/**
 * Checks the arguments of a call against the API's parameters and applies defaults. Unknown
 * parameters, missing required ones, wrong types and broken constraints are 422 errors.
 */
export function validateArguments(api: ApiDefinition, raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid('the arguments must be one object of named parameters, e.g. {name: value}');
  }
  const given = raw as Record<string, unknown>;
  const known = new Set(api.parameters.map((spec) => spec.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) throw invalid(`unexpected parameter '${name}'`);
  }
  const args: Record<string, unknown> = {};
  for (const spec of api.parameters) {
    const value = Object.hasOwn(given, spec.name) ? given[spec.name] : undefined;
    if (value === undefined || (value === null && spec.nullable)) {
      if (spec.required) throw invalid(`parameter '${spec.name}' is required`);
      args[spec.name] = spec.default ?? null;
      continue;
    }
    checkValue(spec, value);
    args[spec.name] = value;
  }
  return args;
}
