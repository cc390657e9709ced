import type { Child } from 'hono/jsx';
import { CSS } from './style.js';

export type Tab = 'journal' | 'jobs' | 'faults';

/** Every page: header with navigation, the inline stylesheet, and (optionally) the page's small inline script. */
export function Layout(props: { title: string; tab: Tab; children: Child; script?: string; lastSeq: number }) {
  const link = (tab: Tab, href: string, label: string) => (
    <a href={href} aria-current={props.tab === tab ? 'page' : undefined} style={props.tab === tab ? 'font-weight:700' : undefined}>
      {label}
    </a>
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {/* No favicon request: /favicon.ico is outside /_dashboard and would be journalled as a client's 404. */}
        <link rel="icon" href="data:," />
        <title>{props.title} · jobproof</title>
        <style dangerouslySetInnerHTML={{ __html: CSS }} />
      </head>
      <body>
        <header>
          <h1>jobproof dashboard</h1>
          <nav>
            {link('journal', '/_dashboard', 'Journal')}
            {link('jobs', '/_dashboard/jobs', 'Jobs & tasks')}
            {link('faults', '/_dashboard/faults', 'Faults & behaviour')}
            <a href="/_dashboard/export.json">export JSON</a>
            <a href="/_dashboard/export.ndjson">NDJSON</a>
          </nav>
          <span class="muted">page served at journal seq {props.lastSeq}</span>
        </header>
        <main>{props.children}</main>
        {props.script ? <script dangerouslySetInnerHTML={{ __html: props.script }} /> : null}
      </body>
    </html>
  );
}
