// The Vercel function for /api/cron/* (Vercel Cron, GET with the cron secret). See api/mail.js for why plain ESM.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("api");
export { handler as GET };
