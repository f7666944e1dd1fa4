// The Vercel function for the routes that process images on the request path (vercel.json sends exactly those
// here: mail asset completion, ad images by URL, template renders and preview.png, the template draft preview):
// the one API function that ships libvips and resvg. Plain ESM over the bundle of lib/functions/media.ts; see
// api/mail.js.
import { handler } from "../dist/functions/media.js";

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
