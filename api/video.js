// The Vercel function for /api/queue/ads-video-render (QStash deliveries of the ad-video render job): the one
// function that ships ffmpeg (vercel.json routes that topic here, every other topic to api/queue.js). The same
// bundle as the other internal functions (lib/functions/internal.ts); see api/mail.js.
import { handler } from "../dist/functions/internal.js";

export { handler as POST };
