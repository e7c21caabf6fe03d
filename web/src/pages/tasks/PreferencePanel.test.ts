import { describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { wordPreference } from './PreferencePanel';

describe('the preference summary, worded', () => {
  it('words the angles and the strategy of the server sentence in the interface language', () => {
    const summary = 'Preferred angles: 「熬夜急救」 (score 14), 「通勤」 (score 3.5); preferred strategy: A (痛点共鸣) (score 4)';
    expect(wordPreference(i18n.getFixedT('zh-CN'), summary)).toBe('偏好角度：「熬夜急救」（14 分）、「通勤」（3.5 分）；偏好策略：A (痛点共鸣)（4 分）');
    expect(wordPreference(i18n.getFixedT('en'), summary)).toBe('Preferred angles: 「熬夜急救」 (score 14), 「通勤」 (score 3.5); Preferred strategy: A (痛点共鸣) (score 4)');
  });

  it('shows a dash for nothing preferred, and a sentence of a new shape as it is', () => {
    const t = i18n.getFixedT('zh-CN');
    expect(wordPreference(t, '')).toBe('—');
    expect(wordPreference(t, '偏好：通勤')).toBe('偏好：通勤');
  });
});
