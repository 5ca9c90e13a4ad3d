import type { ComponentChildren } from 'preact';

/** A view's frame: its heading (focused on navigation, so screen readers announce the view) and any load error. */
export function ViewFrame(props: { title: string; error?: string | undefined; children: ComponentChildren; intro?: string }) {
  return (
    <section aria-labelledby="view-title">
      <h1 id="view-title" tabIndex={-1}>
        {props.title}
      </h1>
      {props.intro !== undefined && <p class="intro">{props.intro}</p>}
      {props.error !== undefined && (
        <p role="alert" class="error">
          {props.error}
        </p>
      )}
      {props.children}
    </section>
  );
}

export function Loading() {
  return <p aria-live="polite">Loading…</p>;
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}
