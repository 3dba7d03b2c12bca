import { requireIdentity, type NameParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { removeSecret } from "@/lib/secrets/store";

export const DELETE = route(async (request, { params }: NameParams) => {
  await removeSecret(await requireIdentity(request), (await params).name);
  return new Response(null, { status: 204 });
});
