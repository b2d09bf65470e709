/**
 * Components rendered to static markup: the skill problems list (file, line, message),
 * explained errors with their actions, loading skeletons, and the shelf's preview kinds
 * as buttons.
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/client';
import type { SkillProblem } from '../src/api/types';
import { Problems, ProblemsBanner } from '../src/skills/Problems';
import { ErrorNote, Skeleton } from '../src/ui/Notice';
import type { Loaded } from '../src/ui/useLoad';

const loaded = <T,>(data: T): Loaded<T> => ({ data, error: null, loading: false, reload: async () => undefined, setData: () => undefined });

describe('Problems', () => {
  it('lists each file with its line and message', () => {
    const html = renderToStaticMarkup(
      <Problems problems={loaded([{ file: 'broken.md', line: 4, message: 'front matter is not valid YAML: bad indentation' }, { file: 'Bad Name.md', message: 'file name is not a valid slug' }])} />,
    );
    expect(html).toContain('skills/broken.md:4');
    expect(html).toContain('line 4');
    expect(html).toContain('front matter is not valid YAML: bad indentation');
    expect(html).toContain('skills/Bad Name.md<');
    expect(html).toContain('file name is not a valid slug');
  });

  it('says when every file loads, and the banner appears only with problems', () => {
    expect(renderToStaticMarkup(<Problems problems={loaded<SkillProblem[]>([])} />)).toContain('Every skill file loads.');
    expect(renderToStaticMarkup(<ProblemsBanner structureId="s" count={0} />)).toBe('');
    expect(renderToStaticMarkup(<ProblemsBanner structureId="s" count={2} />)).toContain('2 skill files could not be loaded.');
  });
});

describe('ErrorNote', () => {
  it('shows what happened, the server’s words, what to do and the offered actions, with no status code', () => {
    const error = new ApiError({ status: 409, title: 'Already exists', code: 'already_exists', detail: 'a skill with the slug onboard already exists' });
    const html = renderToStaticMarkup(
      <ErrorNote error={error}>
        <a href="#/x">Open the existing one</a>
      </ErrorNote>,
    );
    expect(html).toContain('role="alert"');
    expect(html).toContain('That already exists.');
    expect(html).toContain('A skill with the slug onboard already exists.');
    expect(html).toContain('Open the existing one');
    expect(html).not.toContain('409');
  });

  it('renders nothing without an error', () => {
    expect(renderToStaticMarkup(<ErrorNote error={null} />)).toBe('');
  });
});

describe('Skeleton', () => {
  it('is one busy status with placeholder lines', () => {
    const html = renderToStaticMarkup(<Skeleton lines={3} label="Loading skills" />);
    expect(html).toContain('role="status" aria-busy="true" aria-label="Loading skills"');
    expect(html.match(/skeleton-line/g)).toHaveLength(3);
  });
});
