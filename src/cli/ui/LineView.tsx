/**
 * Draws an input line ({@link LineState}) with its cursor as an inverted cell, or the
 * placeholder (its first letter under the cursor) while nothing is typed.
 */
import { Text } from 'ink';
import type { LineState } from './line-edit.js';

/** Props of {@link LineView}. */
export interface LineViewProps {
  line: LineState;
  placeholder?: string;
}

/** The input line as typed, with the cursor shown. */
export function LineView({ line, placeholder = '' }: LineViewProps) {
  if (!line.value && placeholder)
    return (
      <Text>
        <Text inverse>{placeholder[0]}</Text>
        <Text dimColor>{placeholder.slice(1)}</Text>
      </Text>
    );
  const at = line.value[line.cursor];
  return (
    <Text>
      {line.value.slice(0, line.cursor)}
      <Text inverse>{at === undefined || at === '\n' ? ' ' : at}</Text>
      {at === '\n' ? line.value.slice(line.cursor) : line.value.slice(line.cursor + 1)}
    </Text>
  );
}
