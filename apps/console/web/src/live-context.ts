import { createContext } from 'preact';

/** Subscribes to live-update topics. */
export interface Live {
  subscribe(listener: (topic: string) => void): () => void;
}

export const LiveContext = createContext<Live>({ subscribe: () => () => undefined });

/** A fan-out of topics to the mounted views. */
export function liveHub(): Live & { publish(topic: string): void } {
  const listeners = new Set<(topic: string) => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(topic) {
      for (const listener of listeners) listener(topic);
    },
  };
}
