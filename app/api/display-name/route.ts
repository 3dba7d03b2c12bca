import { displayName, setDisplayName } from "@/lib/db/queries/reviews";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { DisplayNameBody } from "@/lib/contract/requests";

/** The name the identity signs its reviews with; "" when it has none. Later reviews carry a new name. */
export const GET = route(async (request) => {
  const identity = await requireIdentity(request);
  return answer(DisplayNameBody, { name: (await displayName(identity)) ?? "" });
});

export const PUT = route(async (request) => {
  const identity = await requireIdentity(request);
  const { name } = await readJson(request, DisplayNameBody);
  await setDisplayName(identity, name);
  return answer(DisplayNameBody, { name });
});
