/**
 * The A2A SDK (`@a2a-js/sdk`), loaded on first use: the a2a adapter and `bounce serve --a2a`
 * load it, nothing else does. Required through `createRequire`, as `yaml` is (src/yaml.ts),
 * so that the CLI's one bundled file neither holds it nor loads it at start-up.
 */
import { createRequire } from 'node:module';
import type * as Core from '@a2a-js/sdk';
import type * as ClientLib from '@a2a-js/sdk/client';
import type * as ServerLib from '@a2a-js/sdk/server';
import type * as ExpressLib from '@a2a-js/sdk/server/express';
import type * as CompatLib from '@a2a-js/sdk/compat/v0_3';
import type * as CompatExpressLib from '@a2a-js/sdk/compat/v0_3/server/express';

const require = createRequire(import.meta.url);

export type A2aCore = typeof Core;
export type A2aClientLib = typeof ClientLib;
export type A2aServerLib = typeof ServerLib;
export type A2aExpressLib = typeof ExpressLib;
export type A2aCompatLib = typeof CompatLib;
export type A2aCompatExpressLib = typeof CompatExpressLib;

/** The types, the constants and the codecs. */
export const a2aCore = (): A2aCore => require('@a2a-js/sdk') as A2aCore;
/** The client: ClientFactory, the transports, the card resolver. */
export const a2aClient = (): A2aClientLib => require('@a2a-js/sdk/client') as A2aClientLib;
/** The server: DefaultRequestHandler, the task store. */
export const a2aServer = (): A2aServerLib => require('@a2a-js/sdk/server') as A2aServerLib;
/** The SDK's express handlers (JSON-RPC, REST, the agent card). */
export const a2aExpress = (): A2aExpressLib => require('@a2a-js/sdk/server/express') as A2aExpressLib;
/** The protocol's v0.3 compatibility layer: what a v0.3 client (Gemini CLI's remote agents among them) reads and sends. */
export const a2aCompat = (): A2aCompatLib => require('@a2a-js/sdk/compat/v0_3') as A2aCompatLib;
/** The v0.3 agent card as an express router, for callers that ask for v0.3 (or name no version). */
export const a2aCompatExpress = (): A2aCompatExpressLib => require('@a2a-js/sdk/compat/v0_3/server/express') as A2aCompatExpressLib;

/** The little of express that `bounce serve --a2a` uses (the package ships no types of its own). */
export interface ExpressApp {
  (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void;
  use(path: string, ...handlers: unknown[]): ExpressApp;
  get(path: string, ...handlers: unknown[]): ExpressApp;
  disable(setting: string): ExpressApp;
}

/** A new express application. */
export const expressApp = (): ExpressApp => (require('express') as () => ExpressApp)();
