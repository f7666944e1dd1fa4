export * from "./core";
export * from "./mail";
export * from "./ads";
export * from "./assets";
export * from "./mail-webhooks";
export * from "./send-jobs";
export * from "./insights";
