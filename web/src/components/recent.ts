/**
 * There is no list endpoint for fissions; the ids this browser created are remembered per task
 * so the task page can link to them again.
 */
type Kind = 'fissions';

function key(kind: Kind, taskId: number) {
  return `cps.${kind}.${taskId}`;
}

export function recentIds(kind: Kind, taskId: number): number[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key(kind, taskId)) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is number => Number.isInteger(v)) : [];
  } catch {
    return [];
  }
}

export function rememberId(kind: Kind, taskId: number, id: number): number[] {
  const ids = [id, ...recentIds(kind, taskId).filter((v) => v !== id)].slice(0, 10);
  localStorage.setItem(key(kind, taskId), JSON.stringify(ids));
  return ids;
}
