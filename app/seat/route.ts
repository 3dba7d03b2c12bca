import { SeatIndex } from "@/lib/contract/seat";
import { answer } from "@/lib/http/route";
import { seatRoute } from "@/lib/seat/http";

/** SEAT's four functions, for a script or a person who opens the base URL; the library's page is /tools. */
export const GET = seatRoute(async () =>
  answer(SeatIndex, {
    service: "Toolsmith, serving SEAT's API (Self-Extending Agent Toolkit); send Authorization: Bearer <token>",
    docs: "/api/openapi.json",
    functions: [
      { name: "create", method: "POST", path: "/seat/tools", description: "Write a tool from a description." },
      { name: "list", method: "GET", path: "/seat/tools", description: "Your tools; ?status=active|deprecated." },
      { name: "detail", method: "GET", path: "/seat/tools/{id}", description: "One tool, with its statistics." },
      { name: "execute", method: "POST", path: "/seat/tools/{id}/execute", description: "Run it with input_data." },
    ],
  }),
);
