import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { BannedLevel, BannedStatus, TaskStatus } from '../api/types';

/**
 * Solid tag colours with white text at a 4.5:1 contrast or better (antd's light preset tags,
 * orange and gold especially, fall below WCAG AA).
 */
const TONES: Record<string, string | undefined> = {
  blue: '#0958d9',
  processing: '#0958d9',
  green: '#237804',
  orange: '#ad4e00',
  gold: '#7c5e00',
  red: '#cf1322',
  error: '#cf1322',
  purple: '#531dab',
  default: undefined,
};

export function tone(name: string): string | undefined {
  return TONES[name];
}

const STATUS_COLOR: Record<TaskStatus, string> = {
  pending: 'default',
  generating: 'processing',
  pending_selection: 'blue',
  pending_review: 'gold',
  approved: 'green',
  rejected: 'red',
  archived: 'default',
  failed: 'error',
};

export function TaskStatusTag({ status }: { status: TaskStatus }) {
  const { t } = useTranslation();
  return <Tag color={tone(STATUS_COLOR[status])}>{t(`taskStatus.${status}`)}</Tag>;
}

export const LEVEL_COLOR: Record<BannedLevel, string> = { auto_fix: 'blue', soft_warn: 'orange', hard_block: 'red' };
/** Background of a highlighted word in a text, by level. */
export const LEVEL_MARK: Record<BannedLevel, string> = { auto_fix: '#bae0ff', soft_warn: '#ffe58f', hard_block: '#ffa39e' };

export function BannedLevelTag({ level }: { level: BannedLevel }) {
  const { t } = useTranslation();
  return <Tag color={tone(LEVEL_COLOR[level])}>{t(`bannedLevel.${level}`)}</Tag>;
}

const BANNED_STATUS_COLOR: Record<BannedStatus, string> = { pass: 'green', auto_fixed: 'blue', soft_warn: 'orange', hard_block: 'red' };

export function BannedStatusTag({ status }: { status: BannedStatus }) {
  const { t } = useTranslation();
  return <Tag color={tone(BANNED_STATUS_COLOR[status])}>{t(`bannedStatus.${status}`)}</Tag>;
}
