/**
 * `org skills gaps`: the skill gap report (chat messages that matched no skill, or only
 * weakly, grouped, most frequent first), and `--start <n>` to scaffold a skill from a
 * gap with its message as the first trigger.
 */
import { invalid } from '../../core/errors.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson } from '../format.js';
import { runSkillsNew } from './skills-author.js';
import { skillScope, type SkillFlags } from '../scope.js';

/** Arguments of `org skills gaps`. */
export interface SkillsGapsArgs extends SkillFlags {
  /** Days to look back (default 30). */
  days?: number;
  limit?: number;
  /** Start a skill from the gap with this number. */
  start?: number;
  /** Slug of the skill started (default: from the message). */
  slug?: string;
  home?: string;
  edit?: boolean;
  remote?: boolean;
}

/** A slug proposed for a message: its first words, lowercase, joined by hyphens. */
export function slugFromMessage(message: string): string {
  const words = message.toLowerCase().normalize('NFKD').replace(/[^a-z0-9\s-]/g, ' ').split(/[\s-]+/).filter(Boolean);
  return words.slice(0, 6).join('-').slice(0, 64).replace(/-+$/, '') || 'new-skill';
}

/** Prints the gap report, or starts a skill from one gap. */
export async function runSkillsGaps(args: SkillsGapsArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const since = new Date(Date.now() - (args.days ?? 30) * 24 * 60 * 60 * 1000).toISOString();
  const { gaps } = await client.skillGaps({ ...(structureId ? { structure_id: structureId } : {}), since, ...(args.limit ? { limit: args.limit } : {}) });

  if (args.start !== undefined) {
    const gap = gaps[args.start - 1];
    if (!gap) throw invalid(`there is no gap number ${args.start} (the report has ${gaps.length})`);
    const slug = args.slug ?? slugFromMessage(gap.example);
    deps.output.out(`starting ${slug} from "${gap.example}" (its first trigger)`);
    return runSkillsNew({ ...args, slug, triggers: gap.messages }, deps);
  }
  if (args.json) {
    printJson(deps.output, gaps);
    return 0;
  }
  if (gaps.length === 0) {
    deps.output.out(`no gaps in the last ${args.days ?? 30} days: every chat message matched a skill`);
    return 0;
  }
  gaps.forEach((gap, i) => {
    const what = gap.outcome === 'none' ? 'nothing matched' : 'only weak matches';
    deps.output.out(`${i + 1}. ${gap.count}× "${gap.example}"  (${what}; last ${gap.last_seen.slice(0, 10)})`);
    for (const message of gap.messages.slice(1)) deps.output.out(`   also "${message}"`);
    if (gap.candidates.length > 0) deps.output.out(`   closest: ${gap.candidates.map((c) => `${c.slug} ${c.score.toFixed(2)}`).join(', ')}`);
  });
  deps.output.out(`\nstart a skill from a gap (its messages become the first triggers): org skills gaps --start 1 [--slug <slug>]`);
  return 0;
}
