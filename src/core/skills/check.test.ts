/**
 * The one validator (check.ts): what it calls an error the loader skips and the API
 * refuses, what it calls a warning both accept; findings name the lines of the file.
 */
import { describe, expect, it } from 'vitest';
import { checkSkillText } from './check.js';
import { parseSkillText } from './file-format.js';

const DEFAULTS = { learned_by: 'user', learned_at: '2026-01-01T00:00:00.000Z', category: 'general', difficulty: 'medium' } as const;
const file = (body: string, extra = '') => `---\ntype: skill\nname: Plan\nstatus: complete\nsummary: Plan it.\n${extra}---\n${body}`;

describe('checkSkillText', () => {
  it('accepts a clean skill with no finding', () => {
    const result = checkSkillText('plan', file('\n## [a] Step 1: A\n\n## [b] Step 2: B\n'), DEFAULTS);
    expect(result.issues).toEqual([]);
    expect(result.skill?.steps.map((step) => step.id)).toEqual(['a', 'b']);
    expect(result.bodyLine).toBe(7);
  });

  it('errors (duplicate ids, malformed headings, titleless steps) refuse the file, with file lines', () => {
    const result = checkSkillText('plan', file('\n## [a] Step 1: A\n\n## [a] Step 2: B\n\n## Step 3: no id\n'), DEFAULTS);
    expect(result.skill).toBeUndefined();
    expect(result.issues).toEqual([
      { line: 10, severity: 'error', message: 'duplicate step id "a" (first used at line 8)', path: 'body' },
      { line: 12, severity: 'error', message: 'malformed step heading: write it as ## [step-id] Step <n>: <title>', path: 'body' },
    ]);
    const parsed = parseSkillText('plan', file('\n## [a] Step 1: A\n\n## [a] Step 2: B\n'), DEFAULTS);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toBe('duplicate step id "a" (first used at line 8)');
      expect(parsed.line).toBe(10);
      expect(parsed.errors).toEqual([{ path: 'body', message: 'duplicate step id "a" (first used at line 8) (body line 4)' }]);
    }
  });

  it('warnings (numbering, no steps, a complete skill without summary) keep the skill', () => {
    const gaps = checkSkillText('plan', file('\n## [a] Step 1: A\n\n## [b] Step 3: B\n'), DEFAULTS);
    expect(gaps.skill).toBeDefined();
    expect(gaps.issues).toEqual([{ line: 10, severity: 'warning', message: 'step numbering: expected Step 2, found Step 3', path: 'body' }]);
    const bare = checkSkillText('plan', '---\ntype: skill\nname: Plan\nstatus: complete\n---\nNo steps.\n', DEFAULTS);
    expect(bare.skill).toBeDefined();
    expect(bare.issues.map((issue) => `${issue.line} ${issue.severity} ${issue.message}`)).toEqual([
      '1 warning a complete skill should have a one-sentence summary',
      '6 warning no steps: write sections headed ## [step-id] Step 1: <title>',
    ]);
  });

  it('places front matter errors at the member, and YAML errors at the line that broke', () => {
    expect(checkSkillText('plan', '---\ntype: skill\nname: X\nstatus: done\n---\n## [a] Step 1: A\n', DEFAULTS).issues).toEqual([
      { line: 4, severity: 'error', message: 'status must be one of draft, complete, deprecated', path: 'frontmatter.status' },
    ]);
    const yaml = checkSkillText('plan', '---\ntype: skill\nname: X\nstatus: draft\ncategory: ops\ntags: []\ndifficulty: low\nsummary: Plan a team offsite: venue and budget.\n---\n', DEFAULTS);
    expect(yaml.issues).toHaveLength(1);
    expect(yaml.issues[0]).toMatchObject({ line: 8, severity: 'error', message: expect.stringContaining('needs quotes') });
  });
});
