/**
 * Turns a group of child processes into one failure signal: a promise that rejects as soon as
 * any of them exits before the group was asked to stop.
 */
import type { NodeProcess } from './node-process.js';

/** A failure signal over `processes`, and the switch that disarms it for a deliberate stop. */
export function watchExits(processes: readonly NodeProcess[]): { readonly failure: Promise<never>; disarm(): void } {
  let armed = true;
  const failure = new Promise<never>((_resolve, reject) => {
    for (const child of processes) {
      void child.exited.then((code) => {
        if (armed) reject(new Error(`${child.name} exited unexpectedly (${code}); last output:\n${child.tail().slice(-30).join('\n')}`));
      });
    }
  });
  // Observed by whoever races it; never an unhandled rejection when nobody is racing.
  failure.catch(() => undefined);
  return {
    failure,
    disarm: () => {
      armed = false;
    },
  };
}
