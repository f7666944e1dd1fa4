// The Vercel function for /api/queue/ads-video-render (QStash deliveries of the ad-video render job): the one
// function that ships ffmpeg (vercel.json routes that topic here, every other topic to api/queue.js). The same
// runtime as the other entries; see api/mail.js for why plain ESM.
import { functionHandler } from "../dist/functions/vercel.js";

const handler = functionHandler("api");
export { handler as POST };
