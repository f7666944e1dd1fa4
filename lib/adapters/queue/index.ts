export * from "./queue";
export { createLocalQueue } from "./local";
export { createQstashQueue } from "./qstash";
