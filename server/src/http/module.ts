import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';

/** The Fastify instance every module registers its routes on (TypeBox schemas give the types). */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A resource module's routes: registered under API_PREFIX by app.ts (modules/index.ts lists them). */
export type ApiModule = (app: App, ctx: AppContext) => Promise<void>;

export const API_PREFIX = '/api/v1';
