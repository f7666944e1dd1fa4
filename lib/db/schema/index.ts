export * from "./core";
export * from "./mail";
