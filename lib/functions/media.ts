import { createRootApp } from "../runtime";
import { functionHandler } from "../vercel";

/**
 * api/media: the routes that process images on the request path (vercel.json sends exactly those here:
 * mail asset completion, ad images by URL, template renders and preview.png, the operator's template draft
 * preview), the one API function that ships libvips and resvg. The spec answers them with the finished
 * image, so they cannot wait for a queue; the other API functions stay free of native image code. It runs
 * the whole root app: the same routes, middleware and errors as everywhere.
 */
export const handler = functionHandler("media", createRootApp, (app) => app.root);
