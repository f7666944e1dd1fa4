import { extendZodWithOpenApi, z } from "@hono/zod-openapi";

/*
 * Injected into every output file of the function build (lib/commands/build.ts `inject`). The schemas call
 * `.openapi(…)` on zod types as their modules load, which works once zod is extended. With code splitting the
 * bundler links a schema's chunk straight to zod's chunk and does not keep the order in which the sources
 * import `@hono/zod-openapi` (which extends zod as it loads), so the extension is made by this module, which
 * esbuild imports first in each file. Extending twice changes nothing.
 */
extendZodWithOpenApi(z);
