import { z } from "zod";
import { CREATIVE_RATIOS, type CreativeRatio } from "../platform/placement-creative";
import { adTemplateParamTypes } from "../../db/schema/index";

/*
 * An ad template: typed parameters and one declarative layout per ratio (DESIGN §5). A layout is an
 * element tree — boxes with flex styles, text bound to a text parameter or fixed, images bound to an image
 * parameter — that the renderer turns into satori elements. Only the styles listed here exist, so a layout
 * that validates renders the same everywhere, and a typo fails on save with its path instead of being
 * ignored at render time.
 */

const PARAM_TYPES = adTemplateParamTypes;
type ParamType = (typeof PARAM_TYPES)[number];

const FONT_FAMILIES = ["Inter"] as const;
export const FONT_WEIGHTS = [400, 700, 800] as const;

export const RATIO_SIZES: Record<CreativeRatio, { width: number; height: number }> = {
  "1:1": { width: 1080, height: 1080 },
  "4:5": { width: 1080, height: 1350 },
  "9:16": { width: 1080, height: 1920 },
};

const COLOR = /^#[0-9a-fA-F]{6}$/;
const NAME = /^[a-z][a-z0-9_]{0,39}$/;

export const TemplateParam = z
  .strictObject({
    name: z.string().regex(NAME, "lower-case letters, digits and _, starting with a letter, at most 40"),
    type: z.enum(PARAM_TYPES),
    required: z.boolean().default(false),
    label: z.string().min(1).max(100),
    description: z.string().max(500).default(""),
    min_chars: z.int().min(0).max(1000).nullable().default(null),
    max_chars: z.int().min(1).max(1000).nullable().default(null),
    example: z.string().max(2000).nullable().default(null),
    supports_highlight: z.boolean().default(false),
  })
  .superRefine((param, ctx) => {
    if (param.type !== "text" && (param.min_chars !== null || param.max_chars !== null || param.supports_highlight)) {
      ctx.addIssue({ code: "custom", message: "min_chars, max_chars and supports_highlight apply to text parameters only." });
    }
    if (param.min_chars !== null && param.max_chars !== null && param.min_chars > param.max_chars)
      ctx.addIssue({ code: "custom", path: ["min_chars"], message: "min_chars exceeds max_chars." });
    if (param.type === "color" && param.example !== null && !COLOR.test(param.example))
      ctx.addIssue({ code: "custom", path: ["example"], message: "A colour example is #rrggbb." });
  });
export type TemplateParam = z.infer<typeof TemplateParam>;

/** A style value: a fixed value, or a colour parameter (`{ "param": "brand_color" }`). */
const ParamRef = z.strictObject({ param: z.string() });
const size = z.union([z.number().min(0).max(4000), z.string().regex(/^\d{1,3}(\.\d+)?%$/, "a number of pixels or a percentage")]);
const colorValue = z.union([z.string().regex(COLOR, "#rrggbb"), z.literal("transparent"), ParamRef]);
const px = z.number().min(-4000).max(4000);

export const LayoutStyle = z.strictObject({
  width: size.optional(),
  height: size.optional(),
  minHeight: size.optional(),
  maxWidth: size.optional(),
  padding: px.optional(),
  paddingTop: px.optional(),
  paddingRight: px.optional(),
  paddingBottom: px.optional(),
  paddingLeft: px.optional(),
  margin: px.optional(),
  marginTop: px.optional(),
  marginBottom: px.optional(),
  gap: px.optional(),
  flexDirection: z.enum(["row", "column"]).optional(),
  justifyContent: z.enum(["flex-start", "center", "flex-end", "space-between", "space-around"]).optional(),
  alignItems: z.enum(["flex-start", "center", "flex-end", "stretch"]).optional(),
  flexGrow: z.number().min(0).max(100).optional(),
  flexShrink: z.number().min(0).max(100).optional(),
  flexWrap: z.enum(["wrap", "nowrap"]).optional(),
  position: z.enum(["relative", "absolute"]).optional(),
  top: px.optional(),
  right: px.optional(),
  bottom: px.optional(),
  left: px.optional(),
  backgroundColor: colorValue.optional(),
  color: colorValue.optional(),
  borderRadius: px.optional(),
  borderWidth: px.optional(),
  borderColor: colorValue.optional(),
  opacity: z.number().min(0).max(1).optional(),
  fontFamily: z.enum(FONT_FAMILIES).optional(),
  fontSize: z.number().min(8).max(400).optional(),
  fontWeight: z.union([z.literal(400), z.literal(700), z.literal(800)]).optional(),
  lineHeight: z.number().min(0.8).max(3).optional(),
  letterSpacing: z.number().min(-10).max(40).optional(),
  textAlign: z.enum(["left", "center", "right"]).optional(),
  textTransform: z.enum(["none", "uppercase"]).optional(),
  objectFit: z.enum(["cover", "contain"]).optional(),
});
export type LayoutStyle = z.infer<typeof LayoutStyle>;

export type LayoutNode =
  | { type: "box"; style?: LayoutStyle; children?: LayoutNode[] }
  | { type: "text"; param?: string; text?: string; style?: LayoutStyle; min_font_size?: number; max_lines?: number }
  | { type: "image"; param: string; style?: LayoutStyle };

export const LayoutNode: z.ZodType<LayoutNode> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("box"), style: LayoutStyle.optional(), children: z.array(LayoutNode).max(50).optional() }),
    z.strictObject({
      type: z.literal("text"),
      param: z.string().optional(),
      text: z.string().max(500).optional(),
      style: LayoutStyle.optional(),
      min_font_size: z.number().min(8).max(400).optional(),
      max_lines: z.int().min(1).max(20).optional(),
    }),
    z.strictObject({ type: z.literal("image"), param: z.string(), style: LayoutStyle.optional() }),
  ]),
);

export const Layouts = z.strictObject(Object.fromEntries(CREATIVE_RATIOS.map((ratio) => [ratio, LayoutNode])) as Record<CreativeRatio, typeof LayoutNode>);
export type Layouts = Record<CreativeRatio, LayoutNode>;

/** How a `[[word]]` of a text parameter with `supports_highlight` looks. */
export const HighlightStyle = z.strictObject({ backgroundColor: colorValue, color: colorValue.optional(), paddingX: z.number().min(0).max(100).default(12) });
export type HighlightStyle = z.infer<typeof HighlightStyle>;

export type LayoutProblem = { path: string; message: string };

const MAX_DEPTH = 12;

/**
 * What zod cannot see: every parameter a layout names exists and has the right type (text nodes take text
 * parameters, colours colour parameters, images image parameters), a text node has a parameter or a fixed
 * text, a root's size is its ratio's, and trees stay shallow. Returns every problem with its path.
 */
export function layoutProblems(params: readonly TemplateParam[], layouts: Layouts, highlight: HighlightStyle | null): LayoutProblem[] {
  const problems: LayoutProblem[] = [];
  const types = new Map(params.map((p) => [p.name, p.type]));
  const seen = new Set<string>();
  for (const [i, p] of params.entries()) {
    if (seen.has(p.name)) problems.push({ path: `params.${i}.name`, message: `Parameter ${p.name} is declared twice.` });
    seen.add(p.name);
  }
  const ref = (path: string, name: string, expected: ParamType) => {
    const type = types.get(name);
    if (!type) problems.push({ path, message: `Unknown parameter ${name}.` });
    else if (type !== expected) problems.push({ path, message: `Parameter ${name} is a ${type} parameter; a ${expected} parameter is needed here.` });
  };
  const style = (path: string, s: LayoutStyle | undefined) => {
    for (const key of ["backgroundColor", "color", "borderColor"] as const) {
      const value = s?.[key];
      if (value && typeof value === "object") ref(`${path}.${key}.param`, value.param, "color");
    }
  };
  const walk = (node: LayoutNode, path: string, depth: number) => {
    if (depth > MAX_DEPTH) {
      problems.push({ path, message: `Layouts nest at most ${MAX_DEPTH} levels.` });
      return;
    }
    style(`${path}.style`, node.style);
    if (node.type === "box") {
      for (const [i, child] of (node.children ?? []).entries()) walk(child, `${path}.children.${i}`, depth + 1);
    } else if (node.type === "image") {
      ref(`${path}.param`, node.param, "image");
      if (node.style?.width === undefined || node.style.height === undefined)
        problems.push({ path: `${path}.style`, message: "An image node needs a width and a height." });
    } else {
      if ((node.param === undefined) === (node.text === undefined)) problems.push({ path, message: "A text node has exactly one of param and text." });
      if (node.param !== undefined) ref(`${path}.param`, node.param, "text");
      const fontSize = node.style?.fontSize;
      if (node.min_font_size !== undefined && (fontSize === undefined || node.min_font_size > fontSize))
        problems.push({ path: `${path}.min_font_size`, message: "min_font_size needs a fontSize at least as large." });
      if ((node.min_font_size !== undefined || node.max_lines !== undefined) && typeof node.style?.width !== "number") {
        problems.push({ path: `${path}.style.width`, message: "A text node that shrinks to fit needs a width in pixels." });
      }
    }
  };
  for (const ratio of CREATIVE_RATIOS) {
    const root = layouts[ratio];
    const { width, height } = RATIO_SIZES[ratio];
    if (root.type !== "box") problems.push({ path: `layouts.${ratio}`, message: "The root of a layout is a box." });
    if (root.style?.width !== undefined && root.style.width !== width)
      problems.push({ path: `layouts.${ratio}.style.width`, message: `The ${ratio} layout is ${width} wide.` });
    if (root.style?.height !== undefined && root.style.height !== height)
      problems.push({ path: `layouts.${ratio}.style.height`, message: `The ${ratio} layout is ${height} high.` });
    walk(root, `layouts.${ratio}`, 0);
  }
  if (highlight) style("highlight", highlight as LayoutStyle);
  if (params.some((p) => p.supports_highlight) && !highlight)
    problems.push({ path: "highlight", message: "A template with highlight parameters needs a highlight style." });
  return problems;
}

/** A stored template's definition, parsed again on read (rows hold what was validated on save). */
export function definitionOf(row: { params: unknown; layouts: unknown; highlight: unknown }): {
  params: TemplateParam[];
  layouts: Layouts;
  highlight: HighlightStyle | null;
} {
  return {
    params: z.array(TemplateParam).parse(row.params),
    layouts: Layouts.parse(row.layouts) as Layouts,
    highlight: row.highlight ? HighlightStyle.parse(row.highlight) : null,
  };
}
