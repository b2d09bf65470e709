import type { EventEmitter } from 'node:events';
import { Text } from 'ink';
import { Component, type ReactNode } from 'react';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { KeyboardRoot, useKeys } from './keyboard.js';

/** A screen that records the keys it gets under its name, while `active`. */
function Screen({ name, got, active = true }: { name: string; got: string[]; active?: boolean }) {
  useKeys((input) => got.push(`${name}:${input}`), { isActive: active });
  return <Text>{name}</Text>;
}

/** Resolves once Ink reads the test stdin (the root's subscription is in place). */
async function reading(stdin: unknown): Promise<void> {
  while ((stdin as EventEmitter).listenerCount('readable') === 0) await new Promise((resolve) => setImmediate(resolve));
}

/** Records the error its children throw while rendering, and draws nothing in their place. */
class Catch extends Component<{ caught: Error[]; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error) {
    this.props.caught.push(error);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

describe('useKeys', () => {
  it('hands each key to the handlers of the screen drawn last, and to no unmounted one', async () => {
    const got: string[] = [];
    const app = render(
      <KeyboardRoot>
        <Screen key="first" name="first" got={got} />
      </KeyboardRoot>,
    );
    await reading(app.stdin);
    app.stdin.write('a');
    app.rerender(
      <KeyboardRoot>
        <Screen key="second" name="second" got={got} />
        <Screen key="third" name="third" got={got} />
      </KeyboardRoot>,
    );
    app.stdin.write('b');
    app.unmount();
    expect(got).toEqual(['first:a', 'second:b', 'third:b']);
  });

  it('gives an inactive handler nothing until it is active again', async () => {
    const got: string[] = [];
    const tree = (active: boolean) => (
      <KeyboardRoot>
        <Screen name="list" got={got} active={active} />
      </KeyboardRoot>
    );
    const app = render(tree(true));
    await reading(app.stdin);
    app.stdin.write('x');
    app.rerender(tree(false));
    app.stdin.write('y');
    app.rerender(tree(true));
    app.stdin.write('z');
    app.unmount();
    expect(got).toEqual(['list:x', 'list:z']);
  });

  it('refuses to run outside a KeyboardRoot, naming what is missing', () => {
    const caught: Error[] = [];
    const app = render(
      <Catch caught={caught}>
        <Screen name="alone" got={[]} />
      </Catch>,
    );
    app.unmount();
    expect(caught.map((error) => error.message)).toEqual(['useKeys needs a <KeyboardRoot> above it']);
  });
});
