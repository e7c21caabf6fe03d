import sharp from 'sharp';
import { AccessTokens } from '../../src/security/tokens.js';
import { adminToken, API, call, Deployment, login, must, sleep, userWithRole, type ScenarioResult } from './harness.js';

/**
 * Scenario 6. The matrix: every route of the OpenAPI document (the route table) × role
 * (operator, supervisor, admin) × own/foreign workspace × token variant (none, garbage, expired,
 * old version, revoked personal access token, password change pending), each answer compared with the rule of
 * contract-decisions §3 written out below, independently of the code's own route declarations.
 * Then one-time tickets and download tokens spent 50 times at once: exactly one may succeed.
 */

type MinRole = 'operator' | 'supervisor' | 'admin';
const RANK: Record<MinRole, number> = { operator: 1, supervisor: 2, admin: 3 };

/**
 * Routes an operator may use on their own connection only (change it, test it, list its models,
 * which spends its key): on another workspace's, 404 like any foreign record.
 */
const OTHERS_CONNECTION = /^(PATCH \/api-keys\/\{id\}|POST \/api-keys\/\{id\}\/test|GET \/api-keys\/\{id\}\/models)$/;

/** §3 as a table: the first matching rule wins; everything else is operator (read and write). */
const RULES: Array<[RegExp, MinRole | 'public' | 'token' | 'ticket']> = [
  [/^POST \/auth\/login$/, 'public'],
  [/^GET \/files\/\{key\}$/, 'public'],
  [/^GET \/tasks\/\{id\}\/stream$/, 'ticket'],
  [/^(GET \/auth\/me|POST \/auth\/change-password)$/, 'token'],
  [/^(GET|POST) \/users$/, 'admin'],
  [/^PATCH \/users\/\{id\}$/, 'admin'],
  [/^POST \/workspaces$/, 'admin'],
  [/^(POST|DELETE) \/workspaces\/\{id\}\/members/, 'admin'],
  [/^(GET|POST|DELETE) \/workspaces\/\{id\}\/invitations/, 'admin'],
  [/^GET \/review\/queue$/, 'supervisor'],
  [/^POST \/review\/\{task_id\}\/(approve|reject)$/, 'supervisor'],
  // §12: the audit trail is the admins' and supervisors'.
  [/^GET \/tasks\/\{id\}\/audit$/, 'supervisor'],
  [/^(POST|PUT|DELETE) \/banned-words/, 'supervisor'],
  // The fixture's connection is the admin's: an operator changes or tests only their own.
  [OTHERS_CONNECTION, 'supervisor'],
  [/^PUT \/workspaces\/current\/generation$/, 'supervisor'],
  [/ \/webhooks/, 'admin'],
  // §11: accounts are the supervisors' and admins'; posts everyone's.
  [/^(POST|PATCH|DELETE) \/accounts/, 'supervisor'],
];

function ruleFor(route: string): MinRole | 'public' | 'token' | 'ticket' {
  return RULES.find(([re]) => re.test(route))?.[1] ?? 'operator';
}

interface Fixtures {
  workspace: number;
  product: number;
  image: number;
  benchmark: number;
  bannedWord: number;
  apiKey: number;
  task: number;
  textCandidate: number;
  package: number;
  fission: number;
  user: number;
  invitation: number;
  webhook: number;
  accessToken: number;
  fileKey: string;
  account: number;
  post: number;
  /** An approved task whose sets A and B each have a selected text: set B is posted and cancelled by the delete checks. */
  approvedTask: number;
  comment: number;
  batch: number;
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('fixture did not become ready');
    await sleep(200);
  }
}

let png: Buffer | undefined;
async function uploadForm(field: string): Promise<FormData> {
  png ??= await sharp({ create: { width: 60, height: 80, channels: 3, background: '#c0a0f0' } }).png().toBuffer();
  const form = new FormData();
  form.append('scene', '室内');
  form.append(field, new Blob([png], { type: 'image/png' }), 'a.png');
  return form;
}

async function uploadImage(base: string, token: string, productId: number): Promise<{ id: number; url: string }> {
  const form = await uploadForm('image');
  const res = await fetch(`${base}${API}/products/${productId}/images`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`image upload ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** A receiver that answers nobody: what the matrix checks is who may manage the webhook, not its deliveries. */
const WEBHOOK = { name: '权限测试', url: 'https://example.com/authz-hook', kind: 'generic', events: ['task.approved'] };

async function fixtures(base: string, token: string): Promise<Fixtures> {
  const me = await must(base, 'GET', '/auth/me', token);
  // A user of this workspace only (POST /users adds to the caller's current workspace).
  const member = await must(base, 'POST', '/users', token, { username: `m_ws${me.current_workspace_id}_user`, email: 'member@example.com', password: 'first-password-1', role: 'operator' });
  const key = await must(base, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-authz-key' });
  const product = await must(base, 'POST', '/products', token, { name: '权限产品', category: '护肤', source: 'custom' });
  const image = await uploadImage(base, token, product.id);
  const benchmark = await must(base, 'POST', `/products/${product.id}/benchmarks`, token, { highlights: '亮点', link_url: null, screenshot_url: null });
  const word = await must(base, 'POST', '/banned-words', token, { word: `词${Math.random().toString(36).slice(2, 6)}`, level: 'soft_warn' });
  const task = await must(base, 'POST', '/tasks', token, { product_id: product.id, theme: '权限', text_count: 1, image_count: 1, track: 'ai' });
  const detail = await waitFor(async () => {
    const d = await must(base, 'GET', `/tasks/${task.id}`, token);
    return d.status === 'pending_selection' ? d : undefined;
  });
  await must(base, 'POST', `/tasks/${task.id}/text-candidates/select`, token, { candidate_id: detail.text_candidates[0].candidate_id });
  const pkg = await must(base, 'POST', `/tasks/${task.id}/package`, token, {});
  await waitFor(async () => ((await must(base, 'GET', `/delivery-packages/${pkg.delivery_package_id}/download`, token)).status === 'ready' ? true : undefined));
  const fission = await call(base, 'POST', `${API}/fission`, { token, body: { source_task_id: task.id, fanout_count: 1 } });
  const invitation = await must(base, 'POST', `/workspaces/${me.current_workspace_id}/invitations`, token, { username: `invitee_${me.current_workspace_id}`, role: 'operator' });
  const webhook = await must(base, 'POST', '/webhooks', token, WEBHOOK);
  const accessToken = await must(base, 'POST', '/auth/tokens', token, { name: 'authz', scopes: ['read'] });
  // The publishing operation (§11): an account and a post of an approved task's set A.
  const account = await must(base, 'POST', '/accounts', token, { name: '权限账号', daily_cap: 10, min_gap_minutes: 0 });
  const approved = await must(base, 'POST', '/tasks', token, { product_id: product.id, theme: '排期权限', text_count: 2, image_count: 1, track: 'ai' });
  const generated = await waitFor(async () => {
    const d = await must(base, 'GET', `/tasks/${approved.id}`, token);
    return d.status === 'pending_selection' ? d : undefined;
  });
  for (const strategy of ['A', 'B']) {
    const text = generated.text_candidates.find((t: { strategy: string }) => t.strategy === strategy);
    await must(base, 'POST', `/tasks/${approved.id}/text-candidates/select`, token, { candidate_id: text.candidate_id });
  }
  await must(base, 'POST', `/tasks/${approved.id}/submit-review`, token);
  await must(base, 'POST', `/review/${approved.id}/approve`, token);
  const comment = await must(base, 'POST', `/tasks/${task.id}/comments`, token, { body: '权限评论' });
  const post = await must(base, 'POST', '/posts', token, { account_id: account.id, scheduled_at: new Date(Date.now() + 3_600_000).toISOString(), task_id: approved.id, strategy: 'A', force: true });
  const batch = await must(base, 'POST', '/batches', token, { name: '权限批次', items: [{ product_id: product.id, theme: '批次权限', text_count: 1, image_count: 0 }] });
  return {
    workspace: me.current_workspace_id,
    product: product.id,
    image: image.id,
    benchmark: benchmark.id,
    bannedWord: word.id,
    apiKey: key.id,
    task: task.id,
    textCandidate: detail.text_candidates[0].candidate_id,
    package: pkg.delivery_package_id,
    fission: fission.body?.data?.fission_id ?? 1,
    user: member.id,
    invitation: invitation.id,
    webhook: webhook.id,
    accessToken: accessToken.id,
    fileKey: /files\/([^?]+)/.exec(image.url)![1]!,
    account: account.id,
    post: post.id,
    approvedTask: approved.id,
    comment: comment.id,
    batch: batch.id,
  };
}

function fillPath(route: string, f: Fixtures): string {
  const [, p] = route.split(' ') as [string, string];
  const resource = p.split('/')[1];
  const idOf: Record<string, number> = {
    products: f.product,
    benchmarks: f.benchmark,
    'banned-words': f.bannedWord,
    'api-keys': f.apiKey,
    tasks: f.task,
    'delivery-packages': f.package,
    fission: f.fission,
    users: f.user,
    workspaces: f.workspace,
    webhooks: f.webhook,
    accounts: f.account,
    posts: f.post,
    batches: f.batch,
    // DELETE /auth/tokens/{id}: the caller's own token (personal access tokens, §13).
    auth: f.accessToken,
  };
  return p
    .replace('{id}', String(idOf[resource!] ?? 1))
    .replace('{task_id}', String(f.task))
    .replace('{candidate_id}', String(f.textCandidate))
    .replace('{image_id}', String(f.image))
    .replace('{user_id}', String(f.user))
    .replace('{invitation_id}', String(f.invitation))
    .replace('{comment_id}', String(f.comment))
    .replace('{seq}', '1')
    .replace('{name}', 'ad-law')
    .replace('{key}', f.fileKey);
}

/** Bodies that pass validation, so a foreign id meets the service (a 400 would hide it). */
function bodyFor(route: string, f: Fixtures): unknown {
  const table: Array<[RegExp, unknown]> = [
    [/text-candidates\/select|image-candidates\/select/, { candidate_id: f.textCandidate }],
    [/\/edit$/, { content: '改过的正文' }],
    [/import-text$/, { content: '导入正文', angle_label: '导入' }],
    [/reject$/, { reason: '不合适' }],
    [/^PUT \/products\/\{id\}$/, { name: '改名', category: '护肤', source: 'custom' }],
    [/^PUT \/banned-words\/\{id\}$/, { word: '改词', level: 'soft_warn' }],
    [/^PATCH \/products\/\{id\}\/images/, { scene: '户外' }],
    [/^POST \/workspaces\/\{id\}\/members$/, { user_id: f.user, role: 'operator' }],
    [/^POST \/workspaces\/\{id\}\/invitations$/, { username: 'someone-invited', role: 'operator' }],
    [/^POST \/products\/\{id\}\/benchmarks$/, { highlights: 'x', link_url: null, screenshot_url: null }],
    [/^PATCH \/users\/\{id\}$/, { email: 'x@example.com' }],
    [/^POST \/invitations\/redeem$/, { token: 'no-such-invitation-token' }],
    [/^POST \/accounts$/, { name: '新账号' }],
    [/^POST \/tasks\/\{id\}\/comments$/, { body: '评论' }],
    [/^PATCH \/accounts\/\{id\}$/, { persona: '改过的人设' }],
    [/^POST \/posts$/, { account_id: f.account, scheduled_at: new Date(Date.now() + 7_200_000).toISOString(), task_id: f.approvedTask, strategy: 'A' }],
    [/^PATCH \/posts\/\{id\}$/, { scheduled_at: new Date(Date.now() + 5_400_000).toISOString() }],
    [/^POST \/posts\/\{id\}\/published$/, { note_url: 'https://www.xiaohongshu.com/explore/6650a1b2c3d4e5f6a7b8c9d0' }],
    [/^POST \/posts\/\{id\}\/metrics$/, { views: 10, likes: 1 }],
    [/^POST \/batches$/, { name: '权限批次', items: [{ product_id: f.product, theme: '新批次', text_count: 1, image_count: 0 }] }],
  ];
  return table.find(([re]) => re.test(route))?.[1] ?? {};
}

const isId = (route: string) => /\{(id|task_id|candidate_id|image_id|user_id|invitation_id|comment_id)\}/.test(route);
/**
 * Membership routes name a workspace: for one the caller is not a member of, both a 403 (the
 * admin role there is missing) and a 404 (it is another workspace's record) refuse without
 * revealing anything; either passes.
 */
const namesWorkspace = (route: string) => /\/workspaces\/\{id\}/.test(route);

interface Check {
  route: string;
  who: string;
  expected: string;
  got: number;
  code: number | undefined;
}

export async function authzScenarios(): Promise<ScenarioResult[]> {
  const d = await Deployment.create({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  try {
    const proc = await d.start('all');
    const base = proc.url!;
    const root = await adminToken(base);
    const users = {
      operator: await userWithRole(base, root, 'm_operator', 'operator'),
      supervisor: await userWithRole(base, root, 'm_supervisor', 'supervisor'),
      admin: await userWithRole(base, root, 'm_admin', 'admin'),
    };
    const own = await fixtures(base, root);
    const foreignWs = await must(base, 'POST', '/workspaces', root, { name: 'Foreign', slug: 'foreign' });
    const foreignToken = (await must(base, 'POST', '/workspaces/switch', root, { workspace_id: foreignWs.id })).token;
    const foreign = await fixtures(base, foreignToken);

    // Token variants.
    const old = await userWithRole(base, root, 'm_oldver', 'admin');
    await must(base, 'POST', '/auth/change-password', old.token, { current_password: 'second-password-2', new_password: 'third-password-3' });
    await must(base, 'POST', '/users', root, { username: 'm_fresh', email: 'fresh@example.com', password: 'first-password-1', role: 'admin' });
    const fresh = (await login(base, 'm_fresh', 'first-password-1')).token;
    const claims = JSON.parse(Buffer.from(users.admin.token.split('.')[1]!, 'base64url').toString());
    // A personal access token, revoked: refused everywhere like a dead session (§13).
    const revokedPat = await must(base, 'POST', '/auth/tokens', users.admin.token, { name: 'revoked', scopes: ['read', 'produce', 'review', 'admin'] });
    await must(base, 'DELETE', `/auth/tokens/${revokedPat.id}`, users.admin.token);
    const expired = await new AccessTokens(d.jwtSecret, () => new Date(Date.now() - 13 * 3600_000)).sign({ sub: Number(claims.sub), ws: claims.ws, role: 'admin', ver: claims.ver });

    const doc = await call(base, 'GET', `${API}/openapi.json`);
    const routes: string[] = [];
    for (const [p, ops] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(ops)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) routes.push(`${method.toUpperCase()} ${p.replace(API, '')}`);
    }
    // Deleting first would turn later checks into 404s for a missing record: deletes run last.
    routes.sort((a, b) => Number(a.startsWith('DELETE')) - Number(b.startsWith('DELETE')));

    const mismatches: Check[] = [];
    let checks = 0;
    const send = async (route: string, f: Fixtures, headers: Record<string, string>) => {
      const method = route.split(' ')[0]!;
      const upload = /^POST \/(products\/\{id\}\/(images|benchmarks\/upload)|tasks\/\{id\}\/image-candidates\/upload)$/.test(route);
      const body = method === 'GET' || method === 'DELETE' || upload ? undefined : bodyFor(route, f);
      const raw = upload ? await uploadForm(route.includes('benchmarks') ? 'screenshot' : 'image') : undefined;
      const res = await call(base, method, `${API}${fillPath(route, f)}`, { headers, ...(body === undefined ? {} : { body }), ...(raw ? { raw } : {}) });
      if (res.status >= 500) mismatches.push({ route, who: headers.authorization ?? 'none', expected: '<500', got: res.status, code: res.body?.code });
      return res;
    };
    const expect = (c: Check, ok: boolean) => {
      checks++;
      if (!ok) mismatches.push(c);
    };

    const variants: Array<[string, string | undefined, number, number]> = [
      ['no token', undefined, 401, 40100],
      ['garbage token', 'not.a.jwt', 401, 40101],
      ['expired token', expired, 401, 40101],
      ['old-version token', old.token, 401, 40101],
      ['revoked access token', revokedPat.token, 401, 40101],
    ];
    const deletesToRedo: string[] = [];
    for (const route of routes) {
      const rule = ruleFor(route);
      if (rule === 'public' || rule === 'ticket') continue;
      if (route.startsWith('DELETE')) deletesToRedo.push(route);
      for (const [who, token, status, code] of variants) {
        const res = await send(route, own, token ? { authorization: `Bearer ${token}` } : {});
        expect({ route, who, expected: `${status}/${code}`, got: res.status, code: res.body?.code }, res.status === status && res.body?.code === code);
      }
      const pending = await send(route, own, { authorization: `Bearer ${fresh}` });
      if (rule === 'token') expect({ route, who: 'password change pending', expected: 'allowed', got: pending.status, code: pending.body?.code }, pending.status !== 401 && pending.status !== 403);
      else expect({ route, who: 'password change pending', expected: '403/40301', got: pending.status, code: pending.body?.code }, pending.status === 403 && pending.body?.code === 40301);
      if (rule === 'token') continue;
      for (const role of ['operator', 'supervisor', 'admin'] as const) {
        const allowed = RANK[role] >= RANK[rule];
        const auth = { authorization: `Bearer ${users[role].token}` };
        if (route.startsWith('DELETE') && allowed) continue; // below, on records made for it
        const res = await send(route, own, auth);
        expect(
          { route, who: `${role}, own workspace`, expected: allowed ? 'allowed' : '403/40300', got: res.status, code: res.body?.code },
          allowed ? res.status !== 401 && res.status !== 403 : res.status === 403 && res.body?.code === 40300,
        );
        if (!isId(route)) continue;
        const far = await send(route, foreign, auth);
        if (!allowed) expect({ route, who: `${role}, foreign workspace`, expected: '403 or 404', got: far.status, code: far.body?.code }, far.status === 403 || ((namesWorkspace(route) || OTHERS_CONNECTION.test(route)) && far.status === 404));
        else if (namesWorkspace(route)) expect({ route, who: `${role}, foreign workspace`, expected: '403 or 404', got: far.status, code: far.body?.code }, far.status === 403 || far.status === 404);
        else if (far.status !== 400) expect({ route, who: `${role}, foreign workspace`, expected: '404/40400', got: far.status, code: far.body?.code }, far.status === 404 && far.body?.code === 40400);
      }
    }
    // Allowed deletes: each on a record of its own, own workspace, then a foreign record.
    for (const route of deletesToRedo) {
      const rule = ruleFor(route) as MinRole;
      for (const role of ['operator', 'supervisor', 'admin'] as const) {
        if (RANK[role] < RANK[rule]) continue;
        const auth = { authorization: `Bearer ${users[role].token}` };
        const far = await send(route, foreign, auth);
        if (namesWorkspace(route)) expect({ route, who: `${role}, foreign workspace`, expected: '403 or 404', got: far.status, code: far.body?.code }, far.status === 403 || far.status === 404);
        else expect({ route, who: `${role}, foreign workspace`, expected: '404/40400', got: far.status, code: far.body?.code }, far.status === 404);
        // A personal access token is its owner's alone: each role deletes one of its own.
        const owner = route === 'DELETE /auth/tokens/{id}' || role === 'operator' ? users[role].token : root;
        const fresh = await fixturesForDelete(base, root, own, route, owner);
        const res = await send(route, fresh, auth);
        expect({ route, who: `${role}, own workspace`, expected: 'allowed', got: res.status, code: res.body?.code }, res.status === 200);
      }
    }
    // Rules that depend on the record (§3): an operator deletes only their own API key; only an
    // admin changes a banned word marked not updatable.
    const adminsKey = await must(base, 'POST', '/api-keys', root, { provider: 'local', api_key: 'local-admins-key' });
    const opDel = await call(base, 'DELETE', `${API}/api-keys/${adminsKey.id}`, { token: users.operator.token });
    expect({ route: 'DELETE /api-keys/{id} (another user’s key)', who: 'operator', expected: '403', got: opDel.status, code: opDel.body?.code }, opDel.status === 403);
    const locked = await must(base, 'POST', '/banned-words', root, { word: '锁定词', level: 'hard_block', updatable: false });
    const supPut = await call(base, 'PUT', `${API}/banned-words/${locked.id}`, { token: users.supervisor.token, body: { word: '锁定词', level: 'soft_warn' } });
    expect({ route: 'PUT /banned-words/{id} (updatable: false)', who: 'supervisor', expected: '403', got: supPut.status, code: supPut.body?.code }, supPut.status === 403);
    const admPut = await call(base, 'PUT', `${API}/banned-words/${locked.id}`, { token: users.admin.token, body: { word: '锁定词', level: 'soft_warn', updatable: false } });
    expect({ route: 'PUT /banned-words/{id} (updatable: false)', who: 'admin', expected: '200', got: admPut.status, code: admPut.body?.code }, admPut.status === 200);

    // Issue 28: a supervisor may edit the admin's connection, but not re-point its key elsewhere.
    const presetKey = await must(base, 'POST', '/api-keys', root, { provider: 'openai', api_key: 'sk-admins-openai-key' });
    const repoint = await call(base, 'PATCH', `${API}/api-keys/${presetKey.id}`, { token: users.supervisor.token, body: { base_url: 'https://1.1.1.1/v1' } });
    expect(
      { route: 'PATCH /api-keys/{id} (base_url without api_key)', who: 'supervisor', expected: '400 changing base_url needs api_key', got: repoint.status, code: repoint.body?.code },
      repoint.status === 400 && /^changing base_url needs api_key again/.test(repoint.body?.message ?? ''),
    );
    const withKey = await call(base, 'PATCH', `${API}/api-keys/${presetKey.id}`, { token: users.supervisor.token, body: { base_url: 'https://1.1.1.1/v1', api_key: 'sk-supervisors-own' } });
    expect({ route: 'PATCH /api-keys/{id} (base_url with api_key)', who: 'supervisor', expected: '200', got: withKey.status, code: withKey.body?.code }, withKey.status === 200);
    // An email invitation binds nobody by address: only its link joins, once.
    const byMail = await must(base, 'POST', `/workspaces/${own.workspace}/invitations`, root, { email: 'm_operator@example.com', role: 'supervisor' });
    const listed = await must(base, 'GET', '/invitations', users.operator.token);
    expect({ route: 'GET /invitations (email invitation)', who: 'operator with that address', expected: 'not listed', got: listed.items.length, code: undefined }, !listed.items.some((i: { id: number }) => i.id === byMail.id));
    const redeemed = await call(base, 'POST', `${API}/invitations/redeem`, { token: users.supervisor.token, body: { token: byMail.token } });
    const again = await call(base, 'POST', `${API}/invitations/redeem`, { token: users.operator.token, body: { token: byMail.token } });
    expect({ route: 'POST /invitations/redeem (twice)', who: 'supervisor, then operator', expected: '200 then 404', got: again.status, code: again.body?.code }, redeemed.status === 200 && again.status === 404);

    const matrix: ScenarioResult = {
      scenario: '6 authorization matrix',
      load: `${routes.length} routes from the OpenAPI document, ${checks} checks`,
      faults: '-',
      badInputs: 'no/garbage/expired/old-version/pending-change tokens, foreign ids',
      lostData: '-',
      failures: mismatches.length,
      notes: mismatches.slice(0, 10).map((m) => `${m.route} as ${m.who}: expected ${m.expected}, got ${m.got}/${m.code}`),
    };
    return [matrix, await oneTimeTokens(base, root, own)];
  } finally {
    await d.close();
  }
}

/** A new record for a delete route to remove (the matrix's fixtures stay for the other checks). */
async function fixturesForDelete(base: string, root: string, own: Fixtures, route: string, token: string): Promise<Fixtures> {
  const f = { ...own };
  if (route === 'DELETE /products/{id}') f.product = (await must(base, 'POST', '/products', token, { name: '待删', category: 'c', source: 'custom' })).id;
  if (route === 'DELETE /products/{id}/images/{image_id}') f.image = (await uploadImage(base, token, own.product)).id;
  if (route === 'DELETE /benchmarks/{id}') f.benchmark = (await must(base, 'POST', `/products/${own.product}/benchmarks`, token, { highlights: 'x', link_url: null, screenshot_url: null })).id;
  if (route === 'DELETE /banned-words/{id}') f.bannedWord = (await must(base, 'POST', '/banned-words', root, { word: `删${Math.random().toString(36).slice(2, 8)}`, level: 'soft_warn' })).id;
  if (route === 'DELETE /auth/tokens/{id}') f.accessToken = (await must(base, 'POST', '/auth/tokens', token, { name: 'delete me', scopes: ['read'] })).id;
  // The author deletes their own comment; the operator's is made with the operator's token.
  if (route === 'DELETE /tasks/{id}/comments/{comment_id}') f.comment = (await must(base, 'POST', `/tasks/${own.task}/comments`, token, { body: '待删评论' })).id;
  if (route === 'DELETE /accounts/{id}') f.account = (await must(base, 'POST', '/accounts', root, { name: '待删账号' })).id;
  // Set B of the approved task, planned afresh for each delete (a cancelled post frees its note); an admin's force, as both sets are one task's.
  if (route === 'DELETE /posts/{id}') {
    f.post = (await must(base, 'POST', '/posts', root, { account_id: own.account, scheduled_at: new Date(Date.now() + 10_800_000).toISOString(), task_id: own.approvedTask, strategy: 'B', force: true })).id;
  }
  if (route === 'DELETE /webhooks/{id}') f.webhook = (await must(base, 'POST', '/webhooks', root, WEBHOOK)).id;
  if (route === 'DELETE /api-keys/{id}') f.apiKey = (await must(base, 'POST', '/api-keys', token, { provider: 'local', api_key: 'local-delete-me' })).id;
  if (route === 'DELETE /workspaces/{id}/invitations/{invitation_id}') {
    f.invitation = (await must(base, 'POST', `/workspaces/${own.workspace}/invitations`, root, { username: `m_inv_${Math.random().toString(36).slice(2, 8)}`, role: 'operator' })).id;
  }
  if (route === 'DELETE /workspaces/{id}/members/{user_id}') {
    const u = await must(base, 'POST', '/users', root, { username: `m_del_${Math.random().toString(36).slice(2, 8)}`, email: 'del@example.com', password: 'first-password-1', role: 'operator' });
    f.user = u.id;
  }
  return f;
}

/** 50 concurrent uses of one SSE ticket and of one download token: exactly one may pass. */
async function oneTimeTokens(base: string, token: string, f: Fixtures): Promise<ScenarioResult> {
  const N = 50;
  const ticket = (await must(base, 'POST', `/tasks/${f.task}/sse-ticket`, token)).ticket;
  const streams = await Promise.all(
    Array.from({ length: N }, async () => {
      const controller = new AbortController();
      const res = await fetch(`${base}${API}/tasks/${f.task}/stream?ticket=${ticket}`, { signal: controller.signal });
      controller.abort();
      return res.status;
    }),
  );
  const dl = (await must(base, 'POST', `/delivery-packages/${f.package}/download-token`, token)).token;
  const downloads = await Promise.all(
    Array.from({ length: N }, async () => {
      const res = await fetch(`${base}${API}/delivery-packages/${f.package}/download-file?token=${dl}`);
      await res.arrayBuffer();
      return res.status;
    }),
  );
  const ticketOk = streams.filter((s) => s === 200).length;
  const ticketRefused = streams.filter((s) => s === 401).length;
  const dlOk = downloads.filter((s) => s === 200).length;
  const dlRefused = downloads.filter((s) => s === 410).length;
  const failures = Number(ticketOk !== 1) + Number(ticketRefused !== N - 1) + Number(dlOk !== 1) + Number(dlRefused !== N - 1);
  return {
    scenario: '6 one-time tokens under 50-way concurrency',
    load: `${N} concurrent stream opens with one ticket; ${N} concurrent downloads with one token`,
    faults: '-',
    badInputs: `${2 * (N - 1)} reuses`,
    lostData: `ticket: ${ticketOk} accepted, ${ticketRefused} × 401; download token: ${dlOk} accepted, ${dlRefused} × 410`,
    failures,
    notes: [],
  };
}
