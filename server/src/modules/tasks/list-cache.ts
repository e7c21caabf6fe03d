import { LRUCache } from 'lru-cache';

interface CachedPage {
  version: number;
  /** UTF-8 bytes: sent as they are, without measuring or encoding the text on every request. */
  body: Buffer;
}

/**
 * Serialized `GET /tasks` pages of one process, each tagged with the workspace's task-list
 * version it was read under (`task_list_versions`, bumped by triggers in the transaction of
 * every change a page shows, whichever process makes it). A page is served again only while
 * that version is unchanged, so operators refreshing the same list cost no statement beyond the
 * session's, which reads the version with it (http/auth.ts), instead of the page query, the
 * product join and the serialisation.
 */
export class TaskListCache {
  private readonly pages: LRUCache<string, CachedPage> | undefined;

  /** `maxBytes` of 8 MiB holds about 1,300 pages of 20 tasks (~6 KB each); 0 keeps nothing. */
  constructor(maxBytes: number) {
    this.pages = maxBytes > 0 ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (page) => page.body.length + 64 }) : undefined;
  }

  /** False with a size of 0: nothing is kept, so no version needs reading either. */
  get enabled(): boolean {
    return this.pages !== undefined;
  }

  get(key: string, version: number): Buffer | undefined {
    const page = this.pages?.get(key);
    return page?.version === version ? page.body : undefined;
  }

  set(key: string, version: number, body: Buffer): void {
    this.pages?.set(key, { version, body });
  }
}
