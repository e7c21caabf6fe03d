import type { Migration } from 'kysely';
import * as initial from './20261122_0001_initial.js';
import * as workConfiguration from './20261122_0300_work_configuration.js';
import * as jobResumes from './20261122_0400_job_resumes.js';
import * as taskEvents from './20261122_0600_task_events.js';
import * as taskCounts from './20261122_0601_task_counts.js';
import * as taskListIndexes from './20261122_1200_task_list_indexes.js';
import * as fileReferences from './20261123_0100_file_references.js';
import * as taskListVersions from './20261123_0200_task_list_versions.js';
import * as fissionImages from './20261124_0001_fission_images.js';
import * as taskDayCounts from './20261124_0200_task_day_counts.js';
import * as taskCountsLockOrder from './20261124_0210_task_counts_lock_order.js';
import * as invitations from './20261124_0100_invitations.js';
import * as invitationLinks from './20261128_0100_invitation_links.js';
import * as tokenSessions from './20261128_0200_token_sessions.js';
import * as analysisWarningCodes from './20261124_0110_analysis_warning_codes.js';
import * as idempotencyBodyHash from './20261124_0120_idempotency_body_hash.js';
import * as webhooks from './20261125_1200_webhooks.js';
import * as imageSlots from './20261125_1300_image_slots.js';
import * as taskThemeGrams from './20261125_1500_task_theme_grams.js';
import * as fissionImageOriginals from './20261126_0100_fission_image_originals.js';
import * as recoveredImageOriginals from './20261126_0200_recovered_image_originals.js';
import * as connections from './20261125_1000_connections.js';
import * as presetWordLevels from './20261125_1100_preset_word_levels.js';
import * as linkTables from './20261128_0400_link_tables.js';
import * as oneNoteModel from './20261128_0500_one_note_model.js';
import * as legalBaseline from './20261128_0800_legal_baseline.js';
import * as productAppearance from './20261128_0850_product_appearance.js';
import * as taskAudit from './20261128_0900_task_audit.js';
import * as publishing from './20261128_1000_publishing.js';
import * as accountOnTasks from './20261128_1100_account_on_tasks.js';
import * as reviewContext from './20261128_1200_review_context.js';
import * as connectionRates from './20261128_1300_connection_rates.js';
import * as batches from './20261128_1400_batches.js';
import * as connectionOptions from './20261128_0300_connection_options.js';
import * as failureReasons from './20261128_0600_failure_reasons.js';
import * as accessTokens from './20261128_0700_access_tokens.js';

/**
 * Every migration, by name; names sort in the order they run. Add a new file and a line here;
 * never edit a migration that has been released.
 */
export const migrations: Record<string, Migration> = {
  '20261122_0001_initial': initial,
  '20261122_0300_work_configuration': workConfiguration,
  '20261122_0400_job_resumes': jobResumes,
  '20261122_0600_task_events': taskEvents,
  '20261122_0601_task_counts': taskCounts,
  '20261122_1200_task_list_indexes': taskListIndexes,
  '20261123_0100_file_references': fileReferences,
  '20261123_0200_task_list_versions': taskListVersions,
  '20261124_0001_fission_images': fissionImages,
  '20261124_0100_invitations': invitations,
  '20261124_0110_analysis_warning_codes': analysisWarningCodes,
  '20261124_0120_idempotency_body_hash': idempotencyBodyHash,
  '20261124_0200_task_day_counts': taskDayCounts,
  '20261124_0210_task_counts_lock_order': taskCountsLockOrder,
  '20261125_1100_preset_word_levels': presetWordLevels,
  '20261125_1200_webhooks': webhooks,
  '20261125_1300_image_slots': imageSlots,
  '20261125_1500_task_theme_grams': taskThemeGrams,
  '20261126_0100_fission_image_originals': fissionImageOriginals,
  '20261126_0200_recovered_image_originals': recoveredImageOriginals,
  '20261125_1000_connections': connections,
  '20261128_0100_invitation_links': invitationLinks,
  '20261128_0200_token_sessions': tokenSessions,
  '20261128_0300_connection_options': connectionOptions,
  '20261128_0400_link_tables': linkTables,
  '20261128_0500_one_note_model': oneNoteModel,
  '20261128_0600_failure_reasons': failureReasons,
  '20261128_0700_access_tokens': accessTokens,
  '20261128_0800_legal_baseline': legalBaseline,
  '20261128_0850_product_appearance': productAppearance,
  '20261128_0900_task_audit': taskAudit,
  '20261128_1000_publishing': publishing,
  '20261128_1100_account_on_tasks': accountOnTasks,
  '20261128_1200_review_context': reviewContext,
  '20261128_1300_connection_rates': connectionRates,
  '20261128_1400_batches': batches,
};
