// The ads service's generated types. In the repository this re-exports lib/client/types/ads.ts (the one
// source, written by `npm run client:generate`); the package build puts that file itself here.
export type * from "../../../../lib/client/types/ads";
