import { startTestServer, userWithRole, type TestServer } from '../helpers/server.js';
import { emptyBannedWords } from '../tasks/fixtures.js';

export interface ConfigWorld {
  server: TestServer;
  admin: string;
  supervisor: string;
  operator: string;
  /** Admin token in a second workspace: every id of the first must be a 404 there. */
  otherAdmin: string;
}

/**
 * One server with the three roles in the default workspace and an admin of a second workspace,
 * both with an empty banned-word library: the configuration tests add the words they are about
 * (the legal baseline has its own test, legal-baseline.test.ts).
 */
export async function configWorld(opts: Parameters<typeof startTestServer>[0] = {}): Promise<ConfigWorld> {
  const server = await startTestServer({ worker: false, ...opts });
  const admin = await server.adminToken();
  const supervisor = (await userWithRole(server, 'sup1', 'supervisor')).token;
  const operator = (await userWithRole(server, 'op1', 'operator')).token;
  const created = await server.request('POST', '/api/v1/workspaces', { token: admin, body: { name: 'Other', slug: 'other' } });
  if (created.status !== 200) throw new Error(`workspace: ${created.text}`);
  const switched = await server.request('POST', '/api/v1/workspaces/switch', { token: admin, body: { workspace_id: created.body.data.id } });
  if (switched.status !== 200) throw new Error(`switch: ${switched.text}`);
  // The switch issued a new token for the other workspace; the first token stays valid for the first.
  const otherAdmin = switched.body.data.token as string;
  await emptyBannedWords(server, admin);
  await emptyBannedWords(server, otherAdmin);
  return { server, admin, supervisor, operator, otherAdmin };
}

export function form(fields: Record<string, string>, file?: { field: string; name: string; type: string; data: Buffer }): FormData {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  if (file) body.append(file.field, new Blob([new Uint8Array(file.data)], { type: file.type }), file.name);
  return body;
}

export const PRODUCT = {
  name: '云朵面霜',
  category: '护肤',
  source: 'custom',
  selling_points: ['保湿 48 小时', '无香精'],
  style_tone: '温柔',
  text_angles: ['换季'],
  custom_prompt: null,
};
