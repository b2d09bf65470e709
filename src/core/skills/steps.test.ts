import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSteps, parseStepsByLines, parseStepsWithRemark } from './steps.js';

describe('parseSteps', () => {
  it('reads step headings and ignores code blocks, other levels and non-step headings', () => {
    const body = [
      '# Title',
      '',
      '## [collect] Step 1: Collect the facts',
      'text',
      '```md',
      '## [fake] Step 9: inside a fence',
      '```',
      '~~~',
      '## [fake2] Step 10: inside a tilde fence',
      '~~~',
      '    ## [indented] Step 11: indented code',
      '',
      '### [h3] Step 12: level three',
      '## Notes',
      '## [closing]   Step 2 :  Closing hashes ##',
      '> ## [quoted] Step 13: in a quote',
      '',
      '## [send] step 3: lower-case step',
      '## [bad] Step x: not a number',
      '[draft] Step 4: setext heading',
      '---',
    ].join('\n');
    expect(parseSteps(body)).toEqual([
      { id: 'collect', n: 1, title: 'Collect the facts' },
      { id: 'closing', n: 2, title: 'Closing hashes' },
      { id: 'send', n: 3, title: 'lower-case step' },
      { id: 'draft', n: 4, title: 'setext heading' },
    ]);
  });

  it('keeps [id] literal even when a link definition of that label exists', () => {
    expect(parseSteps('## [ref] Step 1: Linked\n\n[ref]: https://example.com\n')).toEqual([{ id: 'ref', n: 1, title: 'Linked' }]);
  });

  it('takes the fast line scan only for unambiguous bodies', () => {
    expect(parseStepsByLines('## [a] Step 1: A\ntext\n')).toEqual([{ id: 'a', n: 1, title: 'A' }]);
    expect(parseStepsByLines('```\n## [a] Step 1: A\n```\n')).toBeUndefined();
  });

  it('the fast path always agrees with remark', () => {
    const line = fc.constantFrom(
      '## [a] Step 1: Alpha',
      '## [b] Step 2: Beta ##',
      '##  [c]Step 3 :Gamma',
      '## Notes',
      '### [d] Step 4: h3',
      'plain text with ## inside',
      '- list item',
      '  continuation',
      '1. numbered',
      '',
      '**bold** and `code`',
      '\\## [e] Step 5: escaped',
      '#',
      '##',
      '## [f] Step 6:',
      '    indented code',
      '*** ',
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const body = lines.join('\n');
        const fast = parseStepsByLines(body);
        if (fast !== undefined) expect(fast).toEqual(parseStepsWithRemark(body));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        expect(Array.isArray(parseSteps(text))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
