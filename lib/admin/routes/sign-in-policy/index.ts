import { z } from "@hono/zod-openapi";
import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { readSignInPolicy, updateSignInPolicy } from "../../operators/sign-in-policy";
import type { AdminRouter } from "../shared";

const tags = ["Operators"];

const fields = {
  require_second_factor: z.boolean().openapi({
    description:
      "Every password sign-in asks for a second factor (passkey, authenticator app or recovery code); an operator without one sets one up before the console opens. Single sign-on accounts follow the identity provider's own MFA policy instead.",
    example: true,
  }),
  password_sign_in: z.enum(["everyone", "break_glass_only"]).openapi({
    description:
      "`break_glass_only`: password sign-in is refused (403, audited as `signInFailed` with `reason: password_sign_in_off`) for everyone but `break_glass_operator_id`, whose sign-ins are audited with `break_glass: true`. Possible only while single sign-on is set up (`OIDC_ISSUER_URL`).",
    example: "everyone",
  }),
  break_glass_operator_id: z.uuid().nullable().openapi({
    description: "The enabled owner with a password who keeps password sign-in while it is `break_glass_only`.",
    example: null,
  }),
};

const SignInPolicy = z
  .object({ ...fields, updated_at: z.string().nullable().openapi({ description: "Last change; null while never changed.", example: null }) })
  .openapi("SignInPolicy");

/** The console's sign-in policy: owners read and change it; every change is in the audit log. */
export function registerSignInPolicyRoutes(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(deps, "owner", {
      method: "get",
      path: "/v1/sign-in-policy",
      operationId: "getSignInPolicy",
      tags,
      summary: "Read the sign-in policy",
      description: "Whether password accounts need a second factor and who may sign in with a password.",
      responses: { 200: { description: "The policy.", content: json(envelope(SignInPolicy)) }, ...errorResponses("admin", [401]) },
    }),
    async (c) => c.json({ data: await readSignInPolicy(deps.db), request_id: c.get("requestId") }, 200),
  );

  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "patch",
        path: "/v1/sign-in-policy",
        operationId: "updateSignInPolicy",
        tags,
        summary: "Change the sign-in policy",
        description:
          "Changes the fields sent. 409 `sso_not_configured` closing password sign-in without single sign-on; 409 `break_glass_owner_required` without a break-glass owner; 409 `break_glass_owner_invalid` when that operator is not an enabled owner with a password. Audited (`updateSignInPolicy`).",
        request: { body: { required: true, content: json(z.object(fields).partial()) } },
        responses: { 200: { description: "The policy now.", content: json(envelope(SignInPolicy)) }, ...errorResponses("admin", [400, 401, 409, 422]) },
      },
      { target: [] },
    ),
    async (c) => {
      const policy = await updateSignInPolicy(deps.db, deps.clock, { ssoConfigured: Boolean(deps.config.OIDC_ISSUER_URL), change: c.req.valid("json") });
      return c.json({ data: policy, request_id: c.get("requestId") }, 200);
    },
  );
}
