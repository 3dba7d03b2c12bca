import { NextResponse } from "next/server";
import { publicOrigin } from "@/lib/http/origin";

/** A redirect to a path of this app, at the origin the person uses (a 303: the next request is a GET). */
export const redirectTo = (request: Request, path: string) =>
  NextResponse.redirect(new URL(path, publicOrigin(request)), 303);
