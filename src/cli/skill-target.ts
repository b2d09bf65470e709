/**
 * Where the CLI sends a change of a skill it has read (API.md §10): a structure's own
 * skill changes in its structure; an instance skill is changed by the instance
 * administrator naming no structure. For anyone else the change goes to their structure,
 * where the server refuses it with 403 `instance_skill`, whose message says to fork it
 * (`org skills fork <slug>`).
 */
import type { OrgClient } from '../client/index.js';

/** The structure to send a change of a skill through, or undefined for the instance library. */
export async function changeScope(
  client: Pick<OrgClient, 'identify'>,
  skill: { frontmatter: { structure_id?: string | undefined } },
  structureId: () => Promise<string>,
): Promise<string | undefined> {
  if (skill.frontmatter.structure_id !== undefined) return skill.frontmatter.structure_id;
  if ((await client.identify()).admin) return undefined;
  return structureId();
}
