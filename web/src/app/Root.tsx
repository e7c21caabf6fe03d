import { QueryClientProvider } from '@tanstack/react-query';
import { message } from 'antd';
import { lazy, Suspense, useEffect, useMemo } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router-dom';
import { AppConfig } from './AppConfig';
import { PageSpin, RequireAuth } from './guards';
import { setMessageApi } from './notify';
import { createQueryClient } from './queryClient';
import { SessionWatcher } from './session';

// One chunk per page: the login page loads without the console's code.
const LoginPage = lazy(() => import('../pages/auth/LoginPage'));
const ChangePasswordPage = lazy(() => import('../pages/auth/ChangePasswordPage'));
const AppLayout = lazy(() => import('./AppLayout'));
const RequireAction = lazy(() => import('./RequireAction'));
const NotFoundPage = lazy(() => import('./NotFoundPage'));
const ProductsPage = lazy(() => import('../pages/config/ProductsPage'));
const ProductPage = lazy(() => import('../pages/config/ProductPage'));
const BannedWordsPage = lazy(() => import('../pages/config/BannedWordsPage'));
const ApiKeysPage = lazy(() => import('../pages/config/ApiKeysPage'));
const TaskListPage = lazy(() => import('../pages/tasks/TaskListPage'));
const TaskCreatePage = lazy(() => import('../pages/tasks/TaskCreatePage'));
const TaskPage = lazy(() => import('../pages/tasks/TaskPage'));
const ReviewPage = lazy(() => import('../pages/review/ReviewPage'));
const FissionPage = lazy(() => import('../pages/fission/FissionPage'));
const UsersPage = lazy(() => import('../pages/admin/UsersPage'));
const WorkspacesPage = lazy(() => import('../pages/admin/WorkspacesPage'));
const WebhooksPage = lazy(() => import('../pages/admin/WebhooksPage'));
const IntegrationsPage = lazy(() => import('../pages/integrations/IntegrationsPage'));
const AccountsPage = lazy(() => import('../pages/publishing/AccountsPage'));
const CalendarPage = lazy(() => import('../pages/publishing/CalendarPage'));
const KitPage = lazy(() => import('../pages/publishing/KitPage'));
const AnalyticsPage = lazy(() => import('../pages/publishing/AnalyticsPage'));
const BatchListPage = lazy(() => import('../pages/batches/BatchListPage'));
const BatchCreatePage = lazy(() => import('../pages/batches/BatchCreatePage'));
const BatchPage = lazy(() => import('../pages/batches/BatchPage'));

/** Toasts only: antd's <App> would also pull modal and notification into the first download. */
function useMessageBridge() {
  const [api, holder] = message.useMessage();
  useEffect(() => setMessageApi(api), [api]);
  return holder;
}

export function Root() {
  const queryClient = useMemo(createQueryClient, []);
  const messageHolder = useMessageBridge();
  return (
    <AppConfig>
      {messageHolder}
        <QueryClientProvider client={queryClient}>
          <BrowserRouter>
            <SessionWatcher />
            <Suspense fallback={<PageSpin />}>
              <Routes>
                <Route path="/login" element={<LoginPage />} />
                <Route
                  path="/change-password"
                  element={
                    <RequireAuth passwordPage>
                      <ChangePasswordPage />
                    </RequireAuth>
                  }
                />
                <Route
                  element={
                    <RequireAuth>
                      <AppLayout />
                    </RequireAuth>
                  }
                >
                  <Route index element={<Navigate to="/tasks" replace />} />
                  <Route path="tasks" element={<TaskListPage />} />
                  <Route path="tasks/new" element={<TaskCreatePage />} />
                  <Route path="tasks/:id" element={<TaskPage />} />
                  <Route path="fission/:id" element={<FissionPage />} />
                  <Route path="batches" element={<BatchListPage />} />
                  <Route path="batches/new" element={<BatchCreatePage />} />
                  <Route path="batches/:id" element={<BatchPage />} />
                  <Route path="calendar" element={<CalendarPage />} />
                  <Route path="accounts" element={<AccountsPage />} />
                  <Route path="posts/:id/kit" element={<KitPage />} />
                  <Route path="analytics" element={<AnalyticsPage />} />
                  <Route path="products" element={<ProductsPage />} />
                  <Route path="products/new" element={<ProductPage />} />
                  <Route path="products/:id" element={<ProductPage />} />
                  <Route path="banned-words" element={<BannedWordsPage />} />
                  <Route path="api-keys" element={<ApiKeysPage />} />
                  <Route
                    path="review"
                    element={
                      <RequireAction action="review.decide">
                        <ReviewPage />
                      </RequireAction>
                    }
                  />
                  <Route
                    path="admin/users"
                    element={
                      <RequireAction action="users.manage">
                        <UsersPage />
                      </RequireAction>
                    }
                  />
                  <Route
                    path="admin/workspaces"
                    element={
                      <RequireAction action="workspaces.manage">
                        <WorkspacesPage />
                      </RequireAction>
                    }
                  />
                  <Route
                    path="admin/webhooks"
                    element={
                      <RequireAction action="webhooks.manage">
                        <WebhooksPage />
                      </RequireAction>
                    }
                  />
                  <Route path="integrations" element={<IntegrationsPage />} />
                  <Route path="*" element={<NotFoundPage />} />
                </Route>
              </Routes>
            </Suspense>
          </BrowserRouter>
        </QueryClientProvider>
    </AppConfig>
  );
}
