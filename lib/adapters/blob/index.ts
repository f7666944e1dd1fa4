export * from "./store";
export { createLocalBlobStore, type LocalBlob, type LocalBlobStore, type LocalBlobStoreOptions } from "./local";
export { createVercelBlobStore, type VercelBlobStoreOptions } from "./vercel";
