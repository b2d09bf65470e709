/**
 * How each transcript entry looks: thoughts dimmed, a tool call with a spinner until
 * its result (then the result collapsed to one line; one the turn ended without is marked
 * so), text as it streams, decisions and milestones as marked lines, what was learned
 * (or why not) as a notice, the summary with artifact names, errors in red.
 */
import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import { nodeName } from '../../delegation-print.js';
import { excerpt } from '../../format.js';
import { decisionText } from '../../decision.js';
import { describeLearned } from '../../learned.js';
import type { Entry } from './state.js';

/** Props of {@link EntryView}. */
export interface EntryViewProps {
  entry: Entry;
  /** Width available for collapsed one-liners. */
  width?: number;
  /** The label of a node of the structure (delegations name their node by it). */
  labelOf?: (roleId: string) => string | undefined;
}

/** One transcript entry. */
export function EntryView({ entry, width = 100, labelOf }: EntryViewProps) {
  switch (entry.kind) {
    case 'delegate': {
      const who = nodeName(entry.roleId, labelOf);
      const task = entry.message ? <Text dimColor> {excerpt(entry.message, Math.max(20, width - who.length - 6))}</Text> : null;
      if (entry.status === 'running') {
        return (
          <Text>
            <Text color="yellow">
              <Spinner type="dots" />
            </Text>
            <Text bold> → {who}:</Text>
            {task}
          </Text>
        );
      }
      if (entry.status === 'ended' || !entry.outcome) {
        return (
          <Text>
            <Text color="yellow">⊘ </Text>
            <Text bold>→ {who}</Text>
            <Text dimColor> no answer: the turn ended first</Text>
          </Text>
        );
      }
      const ok = entry.outcome.status === 'complete';
      return (
        <Box flexDirection="column">
          <Text>
            <Text bold>→ {who}:</Text>
            {task}
          </Text>
          <Text>
            <Text color={ok ? 'green' : 'red'}>{ok ? '  ✔ ' : '  ✖ '}</Text>
            <Text>{excerpt(entry.outcome.summary, Math.max(20, width - 4))}</Text>
          </Text>
        </Box>
      );
    }
    case 'user':
      return (
        <Box marginTop={1} flexDirection="column">
          <Text bold color="cyan">
            › {entry.text}
          </Text>
          {entry.attachments.length ? <Text dimColor>  📎 {entry.attachments.join(', ')}</Text> : null}
        </Box>
      );
    case 'thought':
      return (
        <Text dimColor italic>
          · {entry.text}
        </Text>
      );
    case 'text':
      return <Text>{entry.text.replace(/\n+$/, '')}</Text>;
    case 'tool':
      if (entry.status === 'ended') {
        return (
          <Text>
            <Text color="yellow">⊘ </Text>
            <Text bold>{entry.tool}</Text>
            <Text dimColor> no result: the turn ended first</Text>
          </Text>
        );
      }
      return entry.status === 'done' ? (
        <Text>
          <Text color="green">✓ </Text>
          <Text bold>{entry.tool}</Text>
          {entry.args !== undefined ? <Text dimColor> {excerpt(entry.args, Math.max(20, Math.floor(width / 3)))}</Text> : null}
          {entry.result !== undefined ? <Text dimColor> → {excerpt(entry.result, Math.max(20, Math.floor(width / 2)))}</Text> : null}
        </Text>
      ) : (
        <Text>
          <Text color="yellow">
            <Spinner type="dots" />
          </Text>
          <Text bold> {entry.tool}</Text>
          {entry.args !== undefined ? <Text dimColor> {excerpt(entry.args, Math.max(20, width - entry.tool.length - 6))}</Text> : null}
        </Text>
      );
    case 'decision':
      return (
        <Text color="magenta" bold>
          ◆ Decision: {decisionText(entry.title, entry.body)}
        </Text>
      );
    case 'milestone':
      return (
        <Text color="blue" bold>
          ▸ {entry.title}
        </Text>
      );
    case 'skill_learned':
      return <Text color={entry.outcome.stored ? 'yellow' : 'gray'}>{describeLearned(entry.outcome).join('\n')}</Text>;
    case 'complete':
      return (
        <Box flexDirection="column">
          <Text color="green" bold>
            ✔ {entry.summary || 'done'}
          </Text>
          {entry.artifacts.length ? <Text dimColor>  artifacts: {entry.artifacts.join(', ')}</Text> : null}
        </Box>
      );
    case 'error':
      return (
        <Text color="red" bold>
          ✖ {entry.message}
        </Text>
      );
    case 'notice':
      if (entry.tone === 'title') return <Text bold>{entry.text}</Text>;
      return <Text color={entry.tone === 'warn' ? 'yellow' : 'gray'}>{entry.text}</Text>;
  }
}
