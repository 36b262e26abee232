/**
 * Vite's inline worker import (`./file?worker&inline`): a Worker constructor whose script is
 * inlined in the bundle and started from a Blob URL, so the one-file page needs no other file.
 */
declare module '*?worker&inline' {
  const InlineWorker: new (options?: { name?: string }) => Worker;
  // eslint-disable-next-line no-restricted-syntax -- the shape Vite gives this import is a default export
  export default InlineWorker;
}
