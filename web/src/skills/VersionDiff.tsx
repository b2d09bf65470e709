/**
 * The comparison of a skill version with the current text: a unified diff of the two
 * files (jsdiff's `structuredPatch`, three lines of context), each hunk under its line
 * ranges, removed lines marked − and added lines +, with a count of each. Loaded on
 * first use (the diff library is a chunk of its own).
 */
import { structuredPatch } from 'diff';
import { useMemo } from 'react';

/** Props: the version's file (`before`), the current file (`after`), and how each is named. */
export interface VersionDiffProps {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}

/** The line-by-line changes from `before` to `after`. */
export default function VersionDiff({ before, after, beforeLabel, afterLabel }: VersionDiffProps) {
  const patch = useMemo(() => structuredPatch(beforeLabel, afterLabel, before, after, '', '', { context: 3 }), [before, after, beforeLabel, afterLabel]);
  const lines = patch.hunks.flatMap((hunk) => hunk.lines);
  const removed = lines.filter((line) => line.startsWith('-')).length;
  const added = lines.filter((line) => line.startsWith('+')).length;
  if (patch.hunks.length === 0) return <p className="muted">This version and the current one are the same.</p>;
  return (
    <div className="diff">
      <p className="diff-legend small">
        <span className="diff-del-mark">− {removed} line{removed === 1 ? '' : 's'} only in {beforeLabel}</span>
        <span className="diff-add-mark">+ {added} line{added === 1 ? '' : 's'} only in {afterLabel}</span>
      </p>
      <div className="diff-body" role="region" aria-label={`Changes from ${beforeLabel} to ${afterLabel}`} tabIndex={0}>
        {patch.hunks.map((hunk) => (
          <div key={`${hunk.oldStart}:${hunk.newStart}`} className="diff-hunk">
            <div className="diff-hunk-head">
              lines {hunk.oldStart}–{hunk.oldStart + Math.max(hunk.oldLines - 1, 0)} → {hunk.newStart}–{hunk.newStart + Math.max(hunk.newLines - 1, 0)}
            </div>
            {hunk.lines.map((line, index) => {
              const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('\\') ? 'note' : 'same';
              return (
                <div key={index} className={`diff-line diff-${kind}`}>
                  <span className="diff-sign" aria-hidden="true">
                    {kind === 'add' ? '+' : kind === 'del' ? '−' : ' '}
                  </span>
                  {kind === 'add' ? <span className="sr-only">added: </span> : kind === 'del' ? <span className="sr-only">removed: </span> : null}
                  <span className="diff-text">{line.slice(1) || ' '}</span>
                </div>
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}
