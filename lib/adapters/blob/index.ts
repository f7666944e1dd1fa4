export * from "./store";
export { createLocalBlobStore, type LocalBlobStore } from "./local";
export { createVercelBlobStore } from "./vercel";
