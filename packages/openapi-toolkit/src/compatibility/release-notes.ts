// What the pending release notes (changesets in .changeset/) declare for a package: the bump
// the next release will make. `npx changeset` writes them; `changeset version` consumes them.
import readChangesets from '@changesets/read';
import { REPO_ROOT } from '../apis.js';
import type { Impact } from './policy.js';
import { largest } from './policy.js';

export interface DeclaredBump {
  bump: Impact | 'none';
  /** The notes that declare it, by changeset id (their file name). */
  notes: string[];
}

export async function declaredBump(packageName: string, root = REPO_ROOT): Promise<DeclaredBump> {
  const notes = (await readChangesets(root)).flatMap((changeset) =>
    changeset.releases
      .filter((release) => release.name === packageName && release.type !== 'none')
      .map((release) => ({ id: changeset.id, type: release.type })),
  );
  return { bump: largest(notes.map((n) => n.type as Impact)), notes: notes.map((n) => n.id) };
}
