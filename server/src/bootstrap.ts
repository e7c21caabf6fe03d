import type { AppContext } from './context.js';
import { json, nowIso } from './db/codec.js';
import { hashPassword, generatePassword } from './security/passwords.js';
import { bindUnboundKeys, sealedKeyColumns } from './modules/api-keys/service.js';
import { countUsers, insertUser } from './modules/users/repository.js';
import { upsertMembership } from './modules/memberships/repository.js';
import { findWorkspaceBySlug, insertWorkspace } from './modules/workspaces/repository.js';
import { seedLegalBaseline } from './modules/banned-words/service.js';

/**
 * Every start binds provider keys sealed before keys were bound to their endpoint
 * (bindUnboundKeys). First start on an empty database: one admin in workspace `Default`, forced to change the
 * password; with DEMO_DATA=1 also a `Demo` workspace with a `local` provider key and two sample
 * products. Returns the generated password (to be printed once) when none was configured.
 */
export async function bootstrap(ctx: AppContext): Promise<{ generatedPassword?: string; created: boolean }> {
  await bindUnboundKeys(ctx);
  if ((await countUsers(ctx.db)) > 0) return { created: false };
  const { username, email } = ctx.config.admin;
  const password = ctx.config.admin.password ?? generatePassword();
  const passwordHash = await hashPassword(password, ctx.config.passwordHashCost);
  const now = nowIso(ctx.clock.now());
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const workspaceId = (await findWorkspaceBySlug(trx, 'default'))?.id ?? (await insertWorkspace(trx, { name: 'Default', slug: 'default', now }));
      await seedLegalBaseline(trx, workspaceId, now);
      const userId = await insertUser(trx, { username, email, passwordHash, mustChangePassword: true, workspaceId, now });
      await upsertMembership(trx, { workspaceId, userId, role: 'admin', now });
      if (ctx.config.demoData) {
        const demoId = await insertWorkspace(trx, { name: 'Demo', slug: 'demo', now });
        await seedLegalBaseline(trx, demoId, now);
        await upsertMembership(trx, { workspaceId: demoId, userId, role: 'admin', now });
        await trx.insertInto('api_keys').values({
          workspace_id: demoId,
          provider: 'local',
          ...sealedKeyColumns(ctx, 'local', null, 'local-demo-key'),
          key_last4: '-key',
          created_by: userId,
          created_at: now,
        }).execute();
        for (const product of DEMO_PRODUCTS) {
          await trx.insertInto('products').values({
            workspace_id: demoId,
            name: product.name,
            category: product.category,
            source: 'preset',
            selling_points: json(product.selling_points),
            style_tone: product.style_tone,
            text_angles: json(product.text_angles),
            appearance: product.appearance,
            custom_prompt: null,
            created_at: now,
            updated_at: now,
          }).execute();
        }
      }
    });
  } catch (err) {
    // Another process bootstrapped the same empty database at the same moment: theirs stands.
    if ((await countUsers(ctx.db)) > 0) return { created: false };
    throw err;
  }
  return { created: true, ...(ctx.config.admin.password ? {} : { generatedPassword: password }) };
}

const DEMO_PRODUCTS = [
  {
    name: '云朵柔雾保湿面霜',
    category: '护肤',
    selling_points: ['48小时长效保湿', '神经酰胺修护屏障', '无香精无酒精', '质地轻薄不黏腻'],
    style_tone: '温柔亲切、真实分享',
    text_angles: ['换季干皮急救', '熬夜后的皮肤修护', '敏感肌日常'],
    // What image models draw from when a demo task goes to a real connection (issue 29).
    appearance: '50毫升圆形磨砂白瓷罐，浅云朵蓝旋盖，罐身印有细字“云朵柔雾”，乳白色轻盈面霜',
  },
  {
    name: '轻量折叠通勤背包',
    category: '箱包',
    selling_points: ['仅重480克', '防泼水面料', '可放16英寸电脑', '一秒折叠收纳'],
    style_tone: '干练利落、实用测评',
    text_angles: ['打工人通勤', '周末短途出行', '学生党开学'],
    appearance: '雾霾蓝尼龙双肩包，方正包型，正面一条拉链口袋，黑色肩带，可对折收进内袋',
  },
];
