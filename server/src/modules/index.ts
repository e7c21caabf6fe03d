import type { ApiModule } from '../http/module.js';
import { accessTokenRoutes } from './access-tokens/routes.js';
import { accountRoutes } from './accounts/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { auditRoutes } from './audit/routes.js';
import { authRoutes } from './auth/routes.js';
import { bannedWordRoutes } from './banned-words/routes.js';
import { batchRoutes } from './batches/routes.js';
import { commentRoutes } from './comments/routes.js';
import { benchmarkRoutes } from './benchmarks/routes.js';
import { deliveryRoutes } from './delivery/routes.js';
import { fileRoutes } from './files/routes.js';
import { fissionRoutes } from './fission/routes.js';
import { invitationRoutes } from './invitations/routes.js';
import { metricsRoutes } from './metrics/routes.js';
import { postRoutes } from './posts/routes.js';
import { preferenceRoutes } from './preferences/routes.js';
import { productRoutes } from './products/routes.js';
import { reviewRoutes } from './review/routes.js';
import { taskRoutes } from './tasks/routes.js';
import { userRoutes } from './users/routes.js';
import { webhookRoutes } from './webhooks/routes.js';
import { workspaceRoutes } from './workspaces/routes.js';

/** Every resource module's routes, registered under /api/v1 in this order. */
export const apiModules: ApiModule[] = [authRoutes, workspaceRoutes, invitationRoutes, userRoutes, apiKeyRoutes, fileRoutes, productRoutes, benchmarkRoutes, bannedWordRoutes, taskRoutes, reviewRoutes, auditRoutes, preferenceRoutes, deliveryRoutes, fissionRoutes, webhookRoutes, accessTokenRoutes, accountRoutes, postRoutes, metricsRoutes, commentRoutes, batchRoutes];
