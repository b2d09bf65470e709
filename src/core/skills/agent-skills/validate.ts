/**
 * The Agent Skills reference validation rules for a `SKILL.md` front matter: only the
 * fields the format defines, a `name` of 1–64 lowercase letters, digits and single
 * hyphens that equals the folder name, a `description` of 1–1024 characters, an
 * optional `compatibility` of at most 500 characters and `metadata` mapping strings to
 * strings. Every export is checked against them before it leaves the service.
 */

/** Front matter fields the format defines. */
export const AGENT_SKILL_FIELDS = ['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility'] as const;
/** Longest `name` the format allows, in characters. */
export const AGENT_SKILL_NAME_MAX = 64;
/** Longest `description` the format allows, in characters. */
export const AGENT_SKILL_DESCRIPTION_MAX = 1024;
/** Longest `compatibility` note the format allows, in characters. */
export const AGENT_SKILL_COMPATIBILITY_MAX = 500;

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Checks a parsed `SKILL.md` front matter; returns the problems (empty when valid).
 *
 * @example
 * validateAgentSkill({ name: 'PDF', description: '' }, 'pdf')
 * // → ['name "PDF" must be lowercase letters, digits and single hyphens', 'name "PDF" must equal the folder name "pdf"', 'description must be 1 to 1024 characters']
 */
export function validateAgentSkill(frontmatter: Record<string, unknown>, folderName?: string): string[] {
  const problems: string[] = [];
  const extra = Object.keys(frontmatter).filter((key) => !(AGENT_SKILL_FIELDS as readonly string[]).includes(key));
  if (extra.length > 0) problems.push(`unexpected front matter fields: ${extra.sort().join(', ')} (allowed: ${AGENT_SKILL_FIELDS.join(', ')})`);

  const name = frontmatter.name;
  if (typeof name !== 'string' || name.length === 0) problems.push('name is required: 1 to 64 lowercase letters, digits and hyphens');
  else {
    if (name.length > AGENT_SKILL_NAME_MAX) problems.push(`name "${name.slice(0, 80)}" is longer than ${AGENT_SKILL_NAME_MAX} characters`);
    if (!NAME.test(name)) problems.push(`name "${name.slice(0, 80)}" must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen`);
    if (folderName !== undefined && folderName !== name) problems.push(`name "${name.slice(0, 80)}" must equal the folder name "${folderName}"`);
  }

  const description = frontmatter.description;
  if (typeof description !== 'string' || description.trim() === '' || description.length > AGENT_SKILL_DESCRIPTION_MAX) {
    problems.push(`description must be 1 to ${AGENT_SKILL_DESCRIPTION_MAX} characters saying what the skill does and when to use it`);
  }

  if ('compatibility' in frontmatter) {
    const compatibility = frontmatter.compatibility;
    if (typeof compatibility !== 'string' || compatibility.length === 0 || compatibility.length > AGENT_SKILL_COMPATIBILITY_MAX) {
      problems.push(`compatibility must be 1 to ${AGENT_SKILL_COMPATIBILITY_MAX} characters`);
    }
  }
  if ('license' in frontmatter && typeof frontmatter.license !== 'string') problems.push('license must be a string');
  if ('allowed-tools' in frontmatter && typeof frontmatter['allowed-tools'] !== 'string') problems.push('allowed-tools must be a space-separated string');
  if ('metadata' in frontmatter) {
    const metadata = frontmatter.metadata;
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) problems.push('metadata must be a mapping of strings to strings');
    else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value !== 'string') problems.push(`metadata.${key} must be a string`);
      }
    }
  }
  return problems;
}
