/** MJML's document skeleton (mjml-core's default `skeleton` option), which the package ships untyped. */
declare module "mjml-core/lib/helpers/skeleton.js" {
  const skeleton: (options: { content: string; fonts?: Record<string, string>; inlineStyle?: readonly string[] } & Record<string, unknown>) => string;
  // biome-ignore lint/style/noDefaultExport: the CommonJS module's export is the function itself.
  export default skeleton;
}
