/**
 * Which skills a turn followed, from what it did (issue 31.4). Auto-learning stores a
 * draft only for a turn that no skill covered, and a skill covers a turn only when the
 * turn followed it: it was invoked by slug (`/<slug>`), the runtime read it (a
 * `read_skill` tool call), or the runtime ran its steps (a milestone named after one of
 * them). A skill the search merely offered — matched on a word of the request, never
 * opened — covers nothing.
 */
import type { EventInput } from './types.js';

/** A skill the enrichment offered the turn, with its steps' numbers and titles. */
export interface OfferedSkill {
  slug: string;
  steps: readonly { n: number; title: string }[];
}

/** How a turn followed a skill, in words for the `skill_learned` outcome. */
export type FollowedHow = 'invoked by its slug' | 'read it' | 'ran its steps';

const normal = (title: string) => title.replace(/\s+/g, ' ').trim().toLowerCase();

/** The skills one turn followed, noted event by event. */
export class FollowedSkills {
  private readonly followed = new Map<string, FollowedHow>();
  /** Milestone titles (`Step n: title` and the bare title, normalised) → the offered skill they belong to. */
  private readonly stepTitles = new Map<string, string>();

  constructor(invoked: string | undefined, offered: readonly OfferedSkill[]) {
    if (invoked) this.followed.set(invoked, 'invoked by its slug');
    for (const skill of offered) {
      for (const step of skill.steps) {
        for (const title of [`Step ${step.n}: ${step.title}`, step.title]) {
          if (!this.stepTitles.has(normal(title))) this.stepTitles.set(normal(title), skill.slug);
        }
      }
    }
  }

  /** Notes what one event of the turn says about the skills it follows. */
  note(event: EventInput): void {
    if (event.type === 'tool_call' && event.content.tool === 'read_skill') {
      const args = event.content.args as { slug?: unknown } | null;
      if (typeof args?.slug === 'string' && args.slug && !this.followed.has(args.slug)) this.followed.set(args.slug, 'read it');
    } else if (event.type === 'milestone') {
      const slug = this.stepTitles.get(normal(event.content.title));
      if (slug && !this.followed.has(slug)) this.followed.set(slug, 'ran its steps');
    }
  }

  /** The skills followed so far, with how. */
  list(): { slug: string; how: FollowedHow }[] {
    return [...this.followed].map(([slug, how]) => ({ slug, how }));
  }
}
