/** Style sheets are bundled as text (esbuild's `text` loader in lib/console/bundle.ts and lib/commands/build.ts). */
declare module "*.css" {
  const text: string;
  // biome-ignore lint/style/noDefaultExport: esbuild's text loader gives a style sheet as the default export.
  export default text;
}
