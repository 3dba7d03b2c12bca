/**
 * The client side of MCP: the agent's connections to people's and the operator's MCP servers (issue 40). The run's
 * tool source (lib/tools/) turns `mcpClients.tools()` into tools and calls `mcpClients.call()` from its adapter, and
 * `resultForModel` into what the model reads.
 */
export { mcpClients, McpClientPool, describeFailure } from "./pool";
export type { McpCallOptions, McpPoolOptions, McpServerStatus } from "./pool";
export { resultForModel } from "./result";
export type { McpCallResult, McpContent, McpMedia } from "./result";
export { McpClientError, SERVER_NAME, specProblem } from "./spec";
export type { McpServerSpec } from "./spec";
export { qualifiedName } from "./tools";
export type { JsonSchemaObject, McpToolAnnotations, McpToolInfo, SkippedTool } from "./tools";
