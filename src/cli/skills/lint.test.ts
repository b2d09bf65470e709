import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSkillsLint } from '../commands/skills-author.js';
import { formatLint, lintSkillText } from './lint.js';

const front = (extra = '') => `---\ntype: skill\nname: Good\nstatus: draft\n${extra}---\n`;
const lint = (file: string, text: string) => lintSkillText(file, text).map(formatLint);

describe('lintSkillText', () => {
  it('passes a well-formed skill', () => {
    expect(lint('good.md', `${front()}\nIntro.\n\n## [a] Step 1: A\n- x\n\n## [b] Step 2: B\n- y\n`)).toEqual([]);
  });

  it('reports front matter problems at the line of the member', () => {
    const text = '---\ntype: skill\nname: Bad\nstatus: done\ndifficulty: extreme\n---\n## [a] Step 1: A\n';
    expect(lint('bad.md', text)).toEqual(['bad.md:4: error: status must be one of draft, complete, deprecated', 'bad.md:5: error: difficulty must be one of low, medium, high']);
    expect(lint('noname.md', '---\ntype: skill\nstatus: draft\n---\n## [a] Step 1: A\n')).toEqual(['noname.md:1: error: name must be a non-empty string']);
  });

  it('reports a missing or unclosed front matter and YAML errors with their line', () => {
    expect(lint('plain.md', '# Just markdown\n')).toEqual(['plain.md:1: error: no front matter: the file must start with a --- line, then YAML, then ---']);
    expect(lint('open.md', '---\ntype: skill\n')).toEqual(['open.md:1: error: the front matter is not closed: add a --- line after it']);
    const yaml = lint('yaml.md', '---\ntype: skill\nname: [unclosed\nstatus: draft\n---\n');
    expect(yaml).toHaveLength(1);
    expect(yaml[0]).toMatch(/^yaml\.md:\d+: error: front matter is not valid YAML/);
    // An unquoted ": " in a value: reported at its own line, with what to do.
    const colon = lint('colon.md', '---\ntype: skill\nname: Offsite\nstatus: draft\nsummary: Plan a team offsite: venue, budget.\n---\n## [a] Step 1: A\n');
    expect(colon).toEqual(['colon.md:5: error: front matter is not valid YAML: incomplete explicit mapping pair; a key node is missed; or followed by a non-tabulated empty line (a value with ": " in it needs quotes)']);
  });

  it('checks step numbering and duplicate step ids at the heading line', () => {
    const text = `${front()}\n## [a] Step 1: A\n\n## [b] Step 3: B\n\n## [a] Step 3: C\n`;
    expect(lint('steps.md', text)).toEqual([
      'steps.md:9: warning: step numbering: expected Step 2, found Step 3',
      'steps.md:11: error: duplicate step id "a" (first used at line 7)',
    ]);
  });

  it('flags malformed step headings, ignores code blocks, and warns about missing steps', () => {
    const text = `${front()}\n## Step 1: No id\n\n\`\`\`md\n## [x] Step 9: inside a fence\n\`\`\`\n`;
    expect(lint('malformed.md', text)).toEqual([
      'malformed.md:6: warning: no steps: write sections headed ## [step-id] Step 1: <title>',
      'malformed.md:7: error: malformed step heading: write it as ## [step-id] Step <n>: <title>',
    ]);
    expect(lint('Bad_Name.md', `${front()}## [a] Step 1: A\n`)).toEqual([
      'Bad_Name.md:1: error: the file name must be <slug>.md with a slug of lowercase words joined by hyphens ("Bad_Name" is not)',
    ]);
  });
});

describe('org skills lint', () => {
  it('prints file:line messages and exits non-zero on errors (and on warnings with --strict)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-lint-'));
    const skills = join(home, 'skills');
    await mkdir(skills);
    await writeFile(join(skills, 'good.md'), `${front('summary: Fine\n')}\n## [a] Step 1: A\n`);
    await writeFile(join(skills, '.template.md'), 'not a skill, ignored');
    const lines: string[] = [];
    const deps = { output: { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) }, cwd: home, env: {}, interactive: false };
    expect(await runSkillsLint({ paths: [] }, deps)).toBe(0);
    expect(lines).toEqual(['1 file(s) checked: 0 error(s), 0 warning(s)']);

    await writeFile(join(skills, 'dup.md'), `${front()}\n## [a] Step 1: A\n## [a] Step 2: B\n`);
    await writeFile(join(skills, 'nosteps.md'), `${front()}\nNo steps.\n`);
    lines.length = 0;
    expect(await runSkillsLint({ paths: [] }, deps)).toBe(1);
    expect(lines).toEqual([
      'skills/dup.md:8: error: duplicate step id "a" (first used at line 7)',
      'skills/nosteps.md:6: warning: no steps: write sections headed ## [step-id] Step 1: <title>',
      '3 file(s) checked: 1 error(s), 1 warning(s)',
    ]);
    lines.length = 0;
    expect(await runSkillsLint({ paths: ['skills/nosteps.md'] }, deps)).toBe(0);
    expect(await runSkillsLint({ paths: ['skills/nosteps.md'], strict: true }, deps)).toBe(1);
    await expect(runSkillsLint({ paths: ['skills/missing.md'] }, deps)).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
