// htm bound to Preact's h: JSX-like templates without a compile step of their own (esbuild only
// bundles). Every component imports `html` from here.
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
