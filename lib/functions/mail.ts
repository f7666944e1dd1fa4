import { createMailApp } from "../mail/app";
import { mailDepsOf } from "../services";
import { functionHandler } from "../vercel";

/** api/mail (`/mail/v1/*`): the mail app alone; its image route (asset completion) is api/media's (vercel.json). */
export const handler = functionHandler(
  "mail",
  (deps) => createMailApp(mailDepsOf(deps)),
  (app) => app,
);
