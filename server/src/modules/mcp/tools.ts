/**
 * The MCP tools (contract-decisions §13): each one is an HTTP route of the API, called with the
 * caller's own token, so its input schema is the route's TypeBox schemas (params, query, body)
 * and its validation, policy and errors are the route's. An assistant plans posts and reads
 * results; a person posts and marks a post published (§11: the hand-off is to a person).
 */
export interface ToolDef {
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route as registered, under /api/v1 (`:name` parameters). */
  url: string;
  /** Said after a successful answer: what comes next, for work that goes on in the background. */
  followUp?: (data: any) => string;
}

const followTask = (id: unknown) =>
  `Generation runs in the background and is not finished yet: call get_task with id ${String(id)} every 15-30 seconds until status is pending_selection (then read the candidates and select) or failed.`;

export const TOOLS: ToolDef[] = [
  { name: 'list_products', method: 'GET', url: '/api/v1/products', description: 'List the products of the workspace (paged; filter by keyword). Products are what notes are written about.' },
  { name: 'get_product', method: 'GET', url: '/api/v1/products/:id', description: 'One product with its selling points and images.' },
  {
    name: 'create_task',
    method: 'POST',
    url: '/api/v1/tasks',
    description:
      'Start a production task for a product: generates text_count note texts and image_count images per strategy set. Answers at once with the task id; generation takes minutes (follow with get_task). track "ai" generates, "import" waits for texts you import.',
    followUp: (data) => followTask(data?.id),
  },
  { name: 'list_tasks', method: 'GET', url: '/api/v1/tasks', description: 'List tasks of the workspace, newest first (filter by status, product, dates).' },
  {
    name: 'get_task',
    method: 'GET',
    url: '/api/v1/tasks/:id',
    description: 'A task with its status, progress and candidates: text candidates (title, body, tags, score, banned-word hits) and image candidates, per strategy set A/B/C.',
  },
  { name: 'select_text_candidate', method: 'POST', url: '/api/v1/tasks/:id/text-candidates/select', description: 'Select a text candidate for its strategy set (the task must be pending_selection).' },
  { name: 'select_image_candidate', method: 'POST', url: '/api/v1/tasks/:id/image-candidates/select', description: 'Select an image candidate for its slot.' },
  {
    name: 'edit_text_candidate',
    method: 'POST',
    url: '/api/v1/tasks/:id/text-candidates/:candidate_id/edit',
    description: 'Rewrite a text candidate (title, body, tags); it is checked for banned words again and a hard block is refused.',
  },
  {
    name: 'submit_for_review',
    method: 'POST',
    url: '/api/v1/tasks/:id/submit-review',
    description: 'Submit a task whose sets have their selections for review. A supervisor or admin approves or rejects it; submitting publishes nothing.',
  },
  { name: 'list_review_queue', method: 'GET', url: '/api/v1/review/queue', description: 'Tasks waiting for review (needs the review scope and a supervisor or admin role).' },
  {
    name: 'approve_task',
    method: 'POST',
    url: '/api/v1/review/:task_id/approve',
    description: 'Approve a task waiting for review. Only with the review scope and a supervisor or admin role: approve only what the person has decided to approve.',
  },
  { name: 'reject_task', method: 'POST', url: '/api/v1/review/:task_id/reject', description: 'Reject a task waiting for review, with the reason (review scope, supervisor or admin role).' },
  {
    name: 'create_package',
    method: 'POST',
    url: '/api/v1/tasks/:id/package',
    description: 'Build a delivery package (zip of the notes and images) of an approved or pending_selection task. Answers at once with the package id; the build goes on in the background.',
    followUp: (data) =>
      `The package is being built: call get_package with id ${String(data?.delivery_package_id)} until status is ready, then get_package_download_link.`,
  },
  { name: 'get_package', method: 'GET', url: '/api/v1/delivery-packages/:id/download', description: 'A delivery package\'s status (pending, building, ready, downloaded, failed, expired) and details.' },
  {
    name: 'get_package_download_link',
    method: 'POST',
    url: '/api/v1/delivery-packages/:id/download-token',
    description: 'A one-time download link for a ready package, valid 60 seconds: give it to the person or fetch it at once.',
  },
  { name: 'list_accounts', method: 'GET', url: '/api/v1/accounts', description: 'The team\'s Xiaohongshu accounts with their persona, daily cap, minimum gap between posts and time zone.' },
  {
    name: 'list_posts',
    method: 'GET',
    url: '/api/v1/posts',
    description: 'The calendar: posts between from and to (ISO date-times), optionally of one account or status (scheduled, due, published, missed, cancelled), with their latest results.',
  },
  { name: 'get_post', method: 'GET', url: '/api/v1/posts/:id', description: 'One post: account, time, status, the frozen note\'s title, warnings and latest results.' },
  {
    name: 'schedule_post',
    method: 'POST',
    url: '/api/v1/posts',
    description:
      'Plan an approved note on an account at a time: task_id + strategy (the selected set of an approved task) or fission_id + seq. Refused with the conflicting post named when the account\'s daily cap or minimum gap would break, the note is already planned, or it is near-identical to a recent post (only a person with the review scope may force that). Planning posts nothing: a person posts from the kit when the time comes.',
  },
  { name: 'reschedule_post', method: 'PATCH', url: '/api/v1/posts/:id', description: 'Move a scheduled or due post to another time or account (the same cap and gap rules hold).' },
  { name: 'cancel_post', method: 'DELETE', url: '/api/v1/posts/:id', description: 'Cancel a post that is not published; its note may be planned again.' },
  {
    name: 'get_post_kit',
    method: 'GET',
    url: '/api/v1/posts/:id/kit',
    description: 'What the person posting needs: title, body, the #tag line, the images in posting order (links valid about an hour) and the AI-content declaration steps.',
  },
  { name: 'record_post_metrics', method: 'POST', url: '/api/v1/posts/:id/metrics', description: 'Record a published post\'s counts (views, likes, collects, comments, shares, follows) as the person read them.' },
  {
    name: 'get_analytics_overview',
    method: 'GET',
    url: '/api/v1/analytics/overview',
    description: 'What worked: posts scheduled, published and missed; median engagement by strategy, angle, product and account; approval rate and time; paid calls per approved note. Filter by from, to, product_id, account_id.',
  },
  {
    name: 'create_batch',
    method: 'POST',
    url: '/api/v1/batches',
    description:
      'Plan many tasks at once: `matrix` (products × themes × tasks_each, optionally spread over accounts and days with posting times, and a fission per task) or `items` (one task each). All items are checked first: one refused item refuses the batch and names it. Tasks run in the background at the provider\'s pace (follow with get_batch); a planned post goes on the calendar once its note is approved.',
    followUp: (data) => `The batch runs in the background: call get_batch with id ${String(data?.id)} every minute or so; it answers counts, the measured rate and the predicted finish (eta).`,
  },
  { name: 'list_batches', method: 'GET', url: '/api/v1/batches', description: 'Batches of the workspace, newest first, with their counts by state and predicted finish.' },
  { name: 'get_batch', method: 'GET', url: '/api/v1/batches/:id', description: 'A batch: counts (waiting, running, done, failed, cancelled), the measured rate, the predicted finish, and every item with its task, fission and post.' },
  { name: 'cancel_batch', method: 'POST', url: '/api/v1/batches/:id/cancel', description: 'Cancel a running batch: tasks not started are cancelled; running ones finish. Only when the person asked for it.' },
];
