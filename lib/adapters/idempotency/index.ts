export * from "./store";
export { createPostgresIdempotencyStore } from "./postgres";
export { createUpstashIdempotencyStore } from "./upstash";
