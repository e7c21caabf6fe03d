import { describe, expect, it } from 'vitest';
import { engagementOf, hashtagLine, isProfileUrl, localDay, median, NEAR_DUPLICATE_SIMILARITY, noteIdOf, parseNoteUrl, performanceWeight, textSimilarity, weekOf } from '../../src/content/publishing.js';

describe('the publishing kernel', () => {
  it('tells a note copied with small changes from separate notes about one product', () => {
    const note = '这支防晒我已经回购三次了，通勤路上补涂不搓泥，SPF50 PA++++，清爽不油腻，敏感肌也没有刺痛感，夏天通勤党闭眼入。';
    const retouched = '这支防晒我已经回购3次了！通勤路上补涂不搓泥，SPF50 PA++++，清爽不油腻，敏感肌也没刺痛感，夏天通勤党可以闭眼入。';
    const sameProduct = '油皮夏天用防晒最怕闷痘，这支质地像水一样，SPF50 PA++++，上脸十秒成膜，下午也不泛油光，回家卸妆很好卸。';
    expect(textSimilarity(note, note)).toBe(1);
    expect(textSimilarity(note, retouched)).toBeGreaterThanOrEqual(NEAR_DUPLICATE_SIMILARITY);
    expect(textSimilarity(note, sameProduct)).toBeLessThan(0.25);
    expect(textSimilarity('', note)).toBe(0);
  });

  it('reads note links and ids, and refuses other hosts', () => {
    expect(parseNoteUrl('https://www.xiaohongshu.com/explore/6650a1b2c3d4e5f6a7b8c9d0?xsec_token=abc')).toEqual({ url: 'https://www.xiaohongshu.com/explore/6650a1b2c3d4e5f6a7b8c9d0?xsec_token=abc', noteId: '6650a1b2c3d4e5f6a7b8c9d0' });
    expect(parseNoteUrl('http://xhslink.com/a/AbCd12')?.noteId).toBeNull();
    expect(parseNoteUrl('https://xiaohongshu.com.evil.example/explore/6650a1b2c3d4e5f6a7b8c9d0')).toBeUndefined();
    expect(parseNoteUrl('javascript:alert(1)')).toBeUndefined();
    expect(noteIdOf(' 6650A1B2C3D4E5F6A7B8C9D0 ')).toBe('6650a1b2c3d4e5f6a7b8c9d0');
    expect(isProfileUrl('https://www.xiaohongshu.com/user/profile/5f1a2b3c4d5e6f7a8b9c0d1e')).toBe(true);
    expect(isProfileUrl('https://www.xiaohongshu.com/explore/5f1a2b3c4d5e6f7a8b9c0d1e')).toBe(false);
  });

  it('counts days in the account\'s time zone, engagement by §11, and weighs a result against the median', () => {
    // 2026-03-05 17:00 UTC is 01:00 on 03-06 in Beijing.
    expect(localDay(new Date('2026-03-05T17:00:00Z'), 'Asia/Shanghai')).toBe('2026-03-06');
    expect(localDay(new Date('2026-03-05T17:00:00Z'), 'Europe/London')).toBe('2026-03-05');
    expect(engagementOf({ views: 200, likes: 10, collects: 6, comments: 3, shares: 1 })).toBe(0.1);
    expect(engagementOf({ views: 0, likes: 10, collects: null, comments: null, shares: null })).toBeNull();
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
    // Twice the median: +3; half: −3; far off: capped at ±6; no median yet: nothing to weigh.
    expect(performanceWeight(0.1, 0.05)).toBe(3);
    expect(performanceWeight(0.025, 0.05)).toBe(-3);
    expect(performanceWeight(5, 0.05)).toBe(6);
    expect(performanceWeight(0, 0.05)).toBe(-6);
    expect(performanceWeight(0.1, null)).toBeNull();
    expect(hashtagLine(['#防晒', ' 通勤 好物 ', ''])).toBe('#防晒 #通勤好物');
    // Weeks start on Monday in Beijing: Sunday 23:30 UTC is already Monday there.
    expect(weekOf(new Date('2026-11-29T12:00:00Z'))).toBe('2026-11-23');
    expect(weekOf(new Date('2026-11-29T16:30:00Z'))).toBe('2026-11-30');
  });
});
