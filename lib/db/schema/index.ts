export * from "./core";
export * from "./mail";
export * from "./assets";
