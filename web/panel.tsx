// One box of the company page: its data, or why there is none: locked (the key's tier does not
// include it: FORBIDDEN at its path), failed, or still loading.
import type { ComponentChildren } from 'preact';
import { type GraphQLError, isForbidden } from './api';

export function Panel({
  title,
  error,
  loading,
  className,
  toolbar,
  children,
}: {
  title: string;
  /** Shown whatever the state: what changes the data (a locked range can be left by another). */
  toolbar?: ComponentChildren;
  error?: GraphQLError | undefined;
  loading?: boolean;
  className?: string;
  children?: ComponentChildren;
}) {
  const id = `panel-${title.toLowerCase().replace(/\W+/g, '-')}`;
  let body = children;
  if (isForbidden(error))
    body = (
      <p class="locked">
        <strong>Locked</strong>: {error!.message}. A pro key (for example demo-pro) opens it.
      </p>
    );
  else if (error) body = <p class="failed">{error.message}</p>;
  else if (loading) body = <p class="loading">Loading…</p>;
  return (
    <section
      class={`panel ${className ?? ''}${isForbidden(error) ? ' is-locked' : ''}`}
      aria-labelledby={id}
      aria-busy={loading ? 'true' : 'false'}
    >
      <h2 id={id}>{title}</h2>
      {toolbar}
      {body}
    </section>
  );
}
