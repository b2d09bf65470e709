/** Reading a lesson: steps in any of the forms people type, the pending question from the history, the draft it becomes. */
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../chat/store.js';
import { askSummary, lessonOf, lessonSkill, lessonSlug, pendingLesson, stepsOf } from './teach.js';

const message = (sender: 'user' | 'agent', at: string, summary: string | null = null): StoredMessage => ({
  id: at,
  run_id: at,
  sender,
  text: '',
  attachments: [],
  summary,
  artifacts: [],
  status: 'complete',
  created_at: at,
  completed_at: at,
});

describe('stepsOf', () => {
  it('takes one step a line, without bullets or numbers', () => {
    expect(stepsOf('1. Collect dates\n2) Book a venue\n- Send the agenda\n\nStep 4: Follow up')).toEqual(['Collect dates', 'Book a venue', 'Send the agenda', 'Follow up']);
  });
  it('splits a single line on ";" or on inline numbers', () => {
    expect(stepsOf('Collect dates; book a venue ;send the agenda')).toEqual(['Collect dates', 'book a venue', 'send the agenda']);
    expect(stepsOf('1. Collect dates 2. Book a venue 3. Send the agenda')).toEqual(['Collect dates', 'Book a venue', 'Send the agenda']);
    expect(stepsOf('  ')).toEqual([]);
  });
});

describe('the pending question', () => {
  it('is the request of the last agent reply, when that reply asked to be taught', () => {
    const asked = [message('user', '2026-01-01T10:00:00.000Z'), message('agent', '2026-01-01T10:00:01.000Z', askSummary('plan a "team" offsite'))];
    expect(pendingLesson(asked)).toBe('plan a "team" offsite');
    // A later reply about something else closes the question.
    expect(pendingLesson([...asked, message('agent', '2026-01-01T11:00:00.000Z', 'Followed "X" through 2 step(s).')])).toBeUndefined();
    expect(pendingLesson([])).toBeUndefined();
  });
});

describe('lessonOf and lessonSkill', () => {
  const asked = [message('agent', '2026-01-01T10:00:01.000Z', askSummary('plan a team offsite'))];
  it('uses the pending question, else the first line as the request', () => {
    expect(lessonOf('/teach Collect dates; Book a venue', asked)).toEqual({ request: 'plan a team offsite', steps: ['Collect dates', 'Book a venue'] });
    expect(lessonOf('/teach onboard a vendor\n1. Get the W-9\n2. Add them to the ledger', [])).toEqual({ request: 'onboard a vendor', steps: ['Get the W-9', 'Add them to the ledger'] });
    expect(lessonOf('/teach', [])).toEqual({ missing: 'request' });
    // On one line: the request before the first colon, the steps after it.
    expect(lessonOf('/teach water the plants: check which are dry; water them', [])).toEqual({ request: 'water the plants', steps: ['check which are dry', 'water them'] });
    expect(lessonOf('/teach water the plants:', [])).toEqual({ missing: 'steps' });
    // Steps alone never become the request.
    expect(lessonOf('/teach 1. Pick dates 2. Book a venue 3. Send the agenda', [])).toEqual({ missing: 'request' });
    expect(lessonOf('/teach Pick dates; Book a venue', [])).toEqual({ missing: 'request' });
    expect(lessonOf('/teach water the plants', [])).toEqual({ missing: 'steps' });
    expect(lessonOf('/teach Step 1: pick dates', [])).toEqual({ missing: 'request' });
    expect(lessonOf('/teach  ', asked)).toEqual({ missing: 'steps', pending: 'plan a team offsite' });
  });
  it('becomes a valid draft: slug from the request, unique step ids, one section a step', () => {
    const skill = lessonSkill({ request: 'plan a team offsite', steps: ['Collect the dates', 'Collect the dates', 'Send the agenda'] });
    expect(skill.slug).toBe('plan-a-team-offsite');
    expect(skill.name).toBe('Plan a team offsite');
    expect(skill.body).toContain('## [collect-the-dates] Step 1: Collect the dates');
    expect(skill.body).toContain('## [collect-the-dates-2] Step 2: Collect the dates');
    expect(skill.body).toContain('## [send-the-agenda] Step 3: Send the agenda');
    expect(lessonSlug('Ünïcode & symbols!!')).toBe('unicode-symbols');
  });
});
