// The Vercel function for /api/cron/* (Vercel Cron, GET with the cron secret). Plain ESM over the bundle of
// lib/functions/internal.ts (webhooks, queue and crons; no customer API); see api/mail.js.
import { handler } from "../dist/functions/internal.js";

export { handler as GET };
