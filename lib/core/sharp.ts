/**
 * sharp, loaded on first use (only the functions that process images ship libvips), with libvips's operation
 * cache off. That cache (up to 50 MB and 100 operations by default) is native and process-wide, so it outlived
 * the render workers that filled it; our images are never processed twice the same way (content-addressed
 * results are stored instead), so it held memory and saved nothing.
 */
let loaded: Promise<typeof import("sharp").default> | undefined;

/** The module is kept once loaded (and configured once): an `import()` per image is a trip through the module loader. */
export function loadSharp() {
  loaded ??= import("sharp").then((module) => {
    module.default.cache(false);
    return module.default;
  });
  return loaded;
}
