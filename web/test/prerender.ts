/**
 * Renders to markup once every lazy part has loaded (React's `prerender` waits for
 * Suspense), without the boundary comments: for component tests of views that load the
 * markdown renderer on first use.
 */
import type { ReactNode } from 'react';
import { prerender } from 'react-dom/static';

/** The markup of `element` with its lazy parts loaded. */
export async function renderLoaded(element: ReactNode): Promise<string> {
  const { prelude } = await prerender(element);
  return (await new Response(prelude).text()).replace(/<!--\/?\$[!?]?-->/g, '');
}
