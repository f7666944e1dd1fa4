export * from "./limiter";
export { createMemoryRateLimiter } from "./memory";
export { createUpstashRateLimiter } from "./upstash";
