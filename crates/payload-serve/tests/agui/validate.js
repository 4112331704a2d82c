// Validates what the server sent against @ag-ui/core's own published zod schemas.
// Reads a JSON array from standard input: [{"kind": "event" | "input", "value": ...}];
// prints a JSON array of the failures ({index, type, issues}) and exits 0.
"use strict";

const schemas = require("@ag-ui/core/schemas");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const items = JSON.parse(input);
  const failures = [];
  items.forEach((item, index) => {
    const schema = item.kind === "input" ? schemas.RunAgentInputSchema : schemas.EventSchemas;
    const result = schema.safeParse(item.value);
    if (!result.success) {
      failures.push({ index, type: item.value && item.value.type, issues: result.error.issues });
    }
  });
  process.stdout.write(JSON.stringify({ checked: items.length, failures }));
});
