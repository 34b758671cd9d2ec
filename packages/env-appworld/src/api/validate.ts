import { type ApiDefinition, ApiError, type ParameterSpec } from './definition.js';

const invalid = (reason: string): ApiError => new ApiError(422, `Validation error: ${reason}.`);

/** Characters a string argument (or a string in a list argument) may have. */
export const maxStringChars = 100_000;
/** Items a list argument may have. */
export const maxListItems = 1_000;

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

/** Refuses strings longer than `maxStringChars`, in the value or in its list, and lists longer than `maxListItems`. */
function checkSize(name: string, value: unknown): void {
  if (typeof value === 'string' && value.length > maxStringChars) {
    throw invalid(`parameter '${name}' must have length <= ${maxStringChars}, got ${value.length}`);
  }
  if (!Array.isArray(value)) return;
  if (value.length > maxListItems) {
    throw invalid(`parameter '${name}' must have length <= ${maxListItems}, got ${value.length}`);
  }
  const long = value.findIndex((item) => typeof item === 'string' && item.length > maxStringChars);
  if (long >= 0) throw invalid(`item ${long} of parameter '${name}' must have length <= ${maxStringChars}`);
}

function checkValue(spec: ParameterSpec, value: unknown): void {
  if (!typeChecks[spec.type](value)) throw invalid(`parameter '${spec.name}' must be ${typeNames[spec.type]}`);
  checkSize(spec.name, value);
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
 * parameters, missing required ones, wrong types, broken constraints and strings or lists over
 * the size limits are 422 errors.
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
