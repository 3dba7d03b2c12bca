import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scriptedApp, type AppServer } from "../support/app-server";

let app: AppServer;
beforeAll(async () => {
  app = scriptedApp("http://127.0.0.1:9/v1");
  await app.start();
});
afterAll(() => app?.stop());

/** Every route handler under app/api (or app/seat), as "METHOD /api/path/{param}". */
function apiRoutes(dir = path.join("app", "api")): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // The catch-all (app/api/[...path]) answers the paths that are no route: there is nothing to describe.
    if (entry.isDirectory()) return entry.name.startsWith("[...") ? [] : apiRoutes(full);
    if (entry.name !== "route.ts") return [];
    const urlPath = `/${path.dirname(full).split(path.sep).slice(1).join("/")}`.replace(/\[(\w+)\]/g, "{$1}");
    const methods = [
      ...fs
        .readFileSync(full, "utf8")
        .matchAll(/export (?:const|async function|function) (GET|POST|PATCH|PUT|DELETE)\b/g),
    ].map((match) => match[1]);
    return methods.map((method) => `${method} ${urlPath}`);
  });
}

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and describes every /api and /seat route the app serves", async () => {
    const response = await fetch(`${app.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.openapi).toBe("3.1.0");
    const described = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`),
    );
    const served = [...apiRoutes(), ...apiRoutes(path.join("app", "seat"))];
    expect(served.length).toBeGreaterThan(25);
    expect(described.sort()).toEqual(served.sort());
  });

  it("is valid OpenAPI 3.1 by a validator of its own: every operation, answer and schema (SEAT's, which /seat points to, too)", async () => {
    const document = await (await fetch(`${app.url}/api/openapi.json`)).json();
    // The only document the app serves: SEAT's index and /docs name this one.
    expect((await (await fetch(`${app.url}/seat`)).json()).docs).toBe("/api/openapi.json");
    // Throws, failing the test, with each place that breaks the specification.
    await SwaggerParser.validate(document);
  });

  it("takes its request schemas from the routes' own: the tool definition's rules are in it, and SEAT's shapes", async () => {
    const document = await (await fetch(`${app.url}/api/openapi.json`)).json();
    const resolve = (schema: { $ref?: string }) =>
      schema.$ref ? document.components.schemas[schema.$ref.split("/").at(-1)!] : schema;
    const body = resolve(document.paths["/api/tools"].post.requestBody.content["application/json"].schema);
    const [withCode, described] = body.anyOf.map(resolve);
    // The source is `code` (in `language`) or the tool-registration PR's `python_code`: neither alone is required.
    expect(withCode.required).toEqual(["name", "description", "parameters_schema"]);
    expect(withCode.properties.language.enum).toEqual(["javascript", "python"]);
    expect(Object.keys(withCode.properties)).toEqual(expect.arrayContaining(["code", "python_code"]));
    expect(withCode.properties.name.pattern).toBe("^[a-zA-Z][a-zA-Z0-9_]{0,63}$");
    expect(described.required).toEqual(["description"]);

    const execute = document.paths["/api/tools/{id}/execute"].post;
    expect(Object.keys(resolve(execute.requestBody.content["application/json"].schema).properties)).toEqual([
      "input",
      "input_data",
    ]);
    const run = resolve(execute.responses["200"].content["application/json"].schema);
    expect(run.required).toEqual(expect.arrayContaining(["success", "output", "error", "execution_time"]));
    const tool = document.components.schemas.Tool;
    expect(Object.keys(tool.properties)).toEqual(
      expect.arrayContaining([
        "parameters_schema",
        "input_schema",
        "language",
        "stats",
        "statistics",
        "examples",
        "tested",
      ]),
    );
  });

  it("lists SEAT's routes under their own tag, with FastAPI's error shape", async () => {
    const document = await (await fetch(`${app.url}/api/openapi.json`)).json();
    expect(document.tags).toEqual([expect.objectContaining({ name: "SEAT" })]);
    const operations = Object.entries(document.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap(
      ([route, methods]) => Object.values(methods).map((operation) => ({ route, tags: operation.tags })),
    );
    const seat = operations.filter(({ route }) => route.startsWith("/seat"));
    expect(seat.map(({ route }) => route)).toContain("/seat/tools/{id}/execute");
    expect(seat.every(({ tags }) => tags?.join() === "SEAT")).toBe(true);
    expect(operations.filter(({ route }) => route.startsWith("/api/")).every(({ tags }) => !tags)).toBe(true);
    const execute = document.paths["/seat/tools/{id}/execute"].post;
    expect(execute.responses["422"].content["application/json"].schema.$ref).toMatch(/SeatError$/);
    expect(document.components.schemas.SeatRun.required).toEqual(["success", "output", "error", "execution_time"]);
  });

  it("is rendered at /docs from files this app serves", async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const nonce = /'nonce-([^']+)'/.exec(page.headers.get("content-security-policy")!)![1];
    expect(html).toContain(`<script nonce="${nonce}" src="/docs/assets/swagger-ui-bundle.js">`);
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    for (const asset of ["swagger-ui.css", "swagger-ui-bundle.js", "init.js"])
      expect((await fetch(`${app.url}/docs/assets/${asset}`)).status).toBe(200);
    expect((await fetch(`${app.url}/docs/assets/package.json`)).status).toBe(404);
  });
});
