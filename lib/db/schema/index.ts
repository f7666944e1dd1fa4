export * from "./core";
export * from "./mail";
export * from "./ads";
export * from "./assets";
