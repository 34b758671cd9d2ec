import type { ApiDefinition, AppDefinition } from '../api/definition.js';
import { apiDocsApp } from './api-docs.js';
import { filesApp } from './files.js';
import { mailApp } from './mail.js';
import { musicApp } from './music.js';
import { notesApp } from './notes.js';
import { phoneApp } from './phone.js';
import { shopApp } from './shop.js';
import { supervisorApp } from './supervisor.js';
import { walletApp } from './wallet.js';

const docs = apiDocsApp(() => apps);

/** Every app of the embedded world, `supervisor` and `api_docs` included. */
export const apps: readonly AppDefinition[] = [
  supervisorApp,
  docs,
  musicApp,
  walletApp,
  mailApp,
  notesApp,
  shopApp,
  phoneApp,
  filesApp,
];

const byName = new Map(apps.map((app) => [app.name, new Map(app.apis.map((api) => [api.name, api]))]));

/** The API `app.api`, or undefined. */
export const findApi = (app: string, api: string): ApiDefinition | undefined => byName.get(app)?.get(api);

/** Names of every app and its APIs, for building the sandbox's `apis` object. */
export const apiNames = (): Record<string, string[]> =>
  Object.fromEntries(apps.map((app) => [app.name, app.apis.map((api) => api.name)]));
