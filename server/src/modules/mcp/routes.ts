import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../../context.js';
import { accessRefusal, currentUser, type AuthUser, type RouteAccess } from '../../http/auth.js';
import { TOOLS, type ToolDef } from './tools.js';

interface RouteFacts {
  schema: { params?: JsonObject; querystring?: JsonObject; body?: JsonObject };
  access: RouteAccess;
}
type JsonObject = { type?: string; properties?: Record<string, unknown>; required?: string[] };

/**
 * The schemas and access of the API's routes as registered: the MCP tools are those routes.
 * Call before the API modules register.
 */
export function routeRegistry(app: FastifyInstance) {
  const routes = new Map<string, RouteFacts>();
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      const schema = (route.schema ?? {}) as RouteFacts['schema'];
      routes.set(`${method} ${route.url}`, { schema: { params: schema.params, querystring: schema.querystring, body: schema.body }, access: route.config?.access ?? { auth: 'user' } });
    }
  });
  return routes;
}

/** Plain JSON: TypeBox schemas are JSON Schema with symbols for its own bookkeeping, dropped here. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? null));

/** One object schema from the route's path parameters, query and body: a tool takes them all as arguments. */
function inputSchema(facts: RouteFacts): Tool['inputSchema'] {
  const properties: Record<string, object> = {};
  const required = new Set<string>();
  for (const part of [facts.schema.params, facts.schema.querystring, facts.schema.body]) {
    if (!part) continue;
    const p = plain(part);
    Object.assign(properties, p.properties ?? {});
    for (const name of p.required ?? []) required.add(name);
  }
  return { type: 'object', properties, ...(required.size > 0 ? { required: [...required] } : {}) };
}

/** What an assistant can do about an error of the contract (§2), by its code. */
function hintFor(code: number): string {
  if (code === 40000) return 'Fix the arguments as the message says and call again.';
  if (code === 40100 || code === 40101) return 'The access token is missing, revoked, expired or no longer valid (password, role or membership changed): ask the person to create a new one on the Integrations page of the console.';
  if (code === 40300) return 'Not allowed for this token or this person: do not retry; tell the person which scope or role is missing.';
  if (code === 40301) return 'The person must change their password in the console first.';
  if (code === 40400) return 'No such record in this workspace: list the records first and use an id from the list.';
  if (code >= 40900 && code < 41000) return 'The record is not in a state that allows this: read it again (get_task, get_package) and follow its status.';
  if (code === 42201 || code === 42203) return 'The workspace has no provider connection for this: a person must add one in the console (Settings).';
  if (code === 42202) return 'The text contains banned words that block it: rewrite those words and try again.';
  if (code === 42900) return 'Rate limited: wait the number of seconds in the message, then retry.';
  return 'The service failed: retry later, and tell the person if it keeps failing.';
}

const asText = (value: unknown) => ({ type: 'text' as const, text: JSON.stringify(value) });

/** `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (one server per request). */
export async function mcpRoutes(app: FastifyInstance, ctx: AppContext, routes: Map<string, RouteFacts>) {
  const facts = (tool: ToolDef) => {
    const found = routes.get(`${tool.method} ${tool.url}`);
    if (!found) throw new Error(`MCP tool ${tool.name}: no route ${tool.method} ${tool.url}`);
    return found;
  };
  // Every tool names a route that exists: checked once the routes are all registered.
  app.addHook('onReady', async () => {
    for (const tool of TOOLS) facts(tool);
  });

  const serverFor = (request: FastifyRequest, user: AuthUser) => {
    const server = new Server({ name: 'content-production-service', version: '1.0.0' }, { capabilities: { tools: {} } });
    const authorization = request.headers.authorization!;
    const origin = ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;
    // Listed: the tools this token and role may call (calling another is refused all the same).
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: TOOLS.filter((tool) => !accessRefusal(user, facts(tool).access, tool.method)).map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: inputSchema(facts(tool)),
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (call): Promise<CallToolResult> => {
      const tool = TOOLS.find((t) => t.name === call.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${call.params.name}: list the tools first`);
      const { schema } = facts(tool);
      const args: Record<string, unknown> = { ...(call.params.arguments ?? {}) };
      let missing: string | undefined;
      const url = tool.url.replace(/:(\w+)/g, (_, name: string) => {
        const value = args[name];
        delete args[name];
        if (value === undefined || value === null || value === '') missing ??= name;
        return encodeURIComponent(String(value));
      });
      if (missing) return { isError: true, content: [asText({ code: 40000, message: `${missing} is required` }), { type: 'text', text: hintFor(40000) }] };
      const queryNames = new Set(Object.keys(schema.querystring?.properties ?? {}));
      const query = new URLSearchParams();
      const body: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(args)) {
        if (queryNames.has(name) || tool.method === 'GET') {
          for (const v of [value].flat()) query.append(name, String(v));
        } else body[name] = value;
      }
      const qs = query.toString();
      const res = await app.inject({
        method: tool.method,
        url: qs ? `${url}?${qs}` : url,
        headers: { authorization, ...(tool.method === 'GET' ? {} : { 'content-type': 'application/json' }) },
        ...(tool.method === 'GET' ? {} : { payload: JSON.stringify(body) }),
      });
      let parsed: any;
      try {
        parsed = JSON.parse(res.body);
      } catch {
        parsed = { code: 50000, message: `unexpected answer ${res.statusCode}` };
      }
      if (res.statusCode >= 400) {
        const envelope = { code: Number(parsed?.code ?? 50000), message: String(parsed?.message ?? 'error') };
        return { isError: true, content: [asText(envelope), { type: 'text', text: hintFor(envelope.code) }] };
      }
      let data = parsed?.data;
      if (tool.name === 'get_package_download_link' && data?.token) {
        data = { url: `${origin}/api/v1/delivery-packages/${encodeURIComponent(String(call.params.arguments?.id))}/download-file?token=${data.token}`, expires_in: data.expires_in };
      }
      const content: CallToolResult['content'] = [asText(data)];
      if (tool.followUp) content.push({ type: 'text', text: tool.followUp(data) });
      return { content };
    });
    return server;
  };

  const handle = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const user = currentUser(request);
    const server = serverFor(request, user);
    // Stateless: no session id, JSON answers (no stream to keep open); a new server per request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
  const config = { access: { auth: 'user' as const, scope: 'any' as const } };
  app.post('/mcp', { config, schema: { hide: true } }, handle);
  // Stateless: no stream to open and no session to end. Answered here, in MCP's JSON-RPC form
  // (the transport would hold a GET open as an idle event stream, delaying shutdown).
  const notAllowed = async (_request: FastifyRequest, reply: import('fastify').FastifyReply) =>
    reply
      .code(405)
      .header('allow', 'POST')
      .send({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless, send every message with POST /mcp' }, id: null });
  app.get('/mcp', { config, schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { config, schema: { hide: true } }, notAllowed);
}
