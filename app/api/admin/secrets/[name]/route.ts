import { requireAdmin } from "@/lib/accounts/admin";
import type { NameParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { removeSecret } from "@/lib/secrets/store";

export const DELETE = route(async (request, { params }: NameParams) => {
  await requireAdmin(request);
  await removeSecret(null, (await params).name);
  return new Response(null, { status: 204 });
});
