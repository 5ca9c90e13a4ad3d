/** Vite bundles imported stylesheets. */
declare module '*.css';
