import type { ImagePlanItem, ImageRole, Note } from '../../content/schemas.js';

/** Chinese shot descriptions per storyboard role, for the offline image plan. */
const SHOTS: Record<ImageRole, string> = {
  main: '产品正面主图，干净背景，主体居中',
  hook: '吸睛封面：产品在真实场景中的氛围大图，上方留白',
  pain: '使用前的小烦恼场景，人物情绪真实',
  proof: '产品质地、规格或真实使用中的手部特写（不做使用前后对比）',
  quality: '材质与细节微距特写',
  credit: '真实手持或包装细节，可信的测评氛围',
  convert: '整洁好看的产品收尾图，留出呼吸感',
};

/** Lines printed on the images: short copy a reader understands, never an internal label. */
const CAPTIONS: Record<Exclude<ImageRole, 'hook' | 'main'>, string> = {
  pain: '你是不是也这样？',
  proof: '细节都在这里',
  quality: '近看质感',
  credit: '真实上手分享',
  convert: '按需入手就好',
};

/** The offline image plan of a note: a shot per role, and captions that read as copy (the cover carries the cover title). */
export function imagePlan(roles: readonly ImageRole[], note: Pick<Note, 'angle_label' | 'cover_title'>): ImagePlanItem[] {
  return roles.map((role) => ({
    role,
    brief: `${SHOTS[role]}（${note.angle_label}）`,
    caption: role === 'hook' || role === 'main' ? note.cover_title : CAPTIONS[role],
  }));
}
