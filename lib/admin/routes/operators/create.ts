import { adminRoute } from "../../access";
import type { CoreDeps } from "../../../core/context";
import { json } from "../../../core/json";
import { envelope, errorResponses } from "../../../core/openapi";
import { createOperator } from "../../operators/accounts";
import { recentAuthSentence, requireRecentAuth } from "../../reauthentication";
import type { AdminRouter } from "../shared";
import { CreateOperator, Operator, tags } from "../../operators/schema";

export function registerCreateOperator(router: AdminRouter, deps: CoreDeps): void {
  router.openapi(
    adminRoute(
      deps,
      "owner",
      {
        method: "post",
        path: "/v1/operators",
        operationId: "createOperator",
        tags,
        summary: "Create an operator account",
        description:
          'The new operator signs in to the console with this e-mail and password and can make their own API tokens. An e-mail already taken answers 409 with `details.reason: "email_taken"`. The first owner of a deployment is created with `npm run admin -- operators:create --email … --role owner`. Creating an owner is sensitive: ' +
          recentAuthSentence(),
        request: { body: { required: true, content: json(CreateOperator) } },
        responses: { 201: { description: "The new operator.", content: json(envelope(Operator)) }, ...errorResponses("admin", [400, 401, 403, 409, 422]) },
      },
      { target: [], creates: "operator" },
    ),
    async (c) => {
      const input = c.req.valid("json");
      if (input.role === "owner") requireRecentAuth(deps, c.get("operator"), "Creating an owner");
      return c.json({ data: await createOperator(deps.db, input), request_id: c.get("requestId") }, 201);
    },
  );
}
