/** A keyboard-driven pick list: ↑/↓ (or k/j) to move, Enter to choose; long lists scroll. */
import { Box, Text, useInput } from 'ink';
import { useReducer } from 'react';
import { moveCursor, visibleWindow, type ListCursor, type ListMove } from './list.js';

/** One choice. */
export interface SelectItem<T> {
  label: string;
  /** Dimmed text after the label. */
  hint?: string;
  value: T;
}

/** Props of {@link SelectList}. */
export interface SelectListProps<T> {
  title: string;
  items: readonly SelectItem<T>[];
  onSelect: (value: T) => void;
  /** Rows shown at once (default 10). */
  height?: number;
  isActive?: boolean;
}

/** A pick list. */
export function SelectList<T>({ title, items, onSelect, height = 10, isActive = true }: SelectListProps<T>) {
  const [cursor, move] = useReducer((state: ListCursor, action: ListMove) => moveCursor(state, action), { index: 0, size: items.length });
  const current = cursor.size === items.length ? cursor : moveCursor(cursor, { type: 'resize', size: items.length });
  useInput(
    (input, key) => {
      if (key.upArrow || input === 'k') move({ type: 'up' });
      else if (key.downArrow || input === 'j') move({ type: 'down' });
      else if (key.pageUp) move({ type: 'page-up', page: height });
      else if (key.pageDown) move({ type: 'page-down', page: height });
      else if (key.return) {
        const item = items[current.index];
        if (item) onSelect(item.value);
      }
    },
    { isActive },
  );
  const { start, end } = visibleWindow(current.index, items.length, height);
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      {start > 0 ? <Text dimColor>  ↑ {start} more</Text> : null}
      {items.slice(start, end).map((item, offset) => {
        const selected = start + offset === current.index;
        return (
          <Text key={start + offset} {...(selected ? { color: 'cyan' } : {})}>
            {selected ? '❯ ' : '  '}
            {item.label}
            {item.hint ? <Text dimColor>  {item.hint}</Text> : null}
          </Text>
        );
      })}
      {end < items.length ? <Text dimColor>  ↓ {items.length - end} more</Text> : null}
      <Text dimColor>↑/↓ to move, Enter to choose</Text>
    </Box>
  );
}
