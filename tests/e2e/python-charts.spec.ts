import { expect, expectAccessible, focusedName, sendMessage, tabTo, test } from "./fixtures";

const ROWS = {
  type: "object",
  properties: { rows: { type: "array", items: { type: "object" } } },
  required: ["rows"],
};
/** PR #120's "convert this CSV to a markdown table", with a chart of it and a line printed on the way. */
const CHART_PY = `import matplotlib.pyplot as plt
import pandas as pd

def run(inputs):
    frame = pd.DataFrame(inputs["rows"])
    print(f"{len(frame)} rows, total {frame['sales'].sum()}")
    plt.bar(frame["month"], frame["sales"])
    plt.title("Sales by month")
    plt.show()
    return frame.to_markdown(index=False)
`;
const ROWS_INPUT = {
  rows: [
    { month: "Jan", sales: 3 },
    { month: "Feb", sales: 5 },
  ],
};

for (const colorScheme of ["light", "dark"] as const) {
  test(`a Python tool's chart and what it printed show on its card (${colorScheme}, 390 px, keyboard only)`, async ({
    page,
    servers,
  }) => {
    const prompt = `Chart my sales (${colorScheme}).`;
    servers.model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: { name: "sales_chart", description: "Chart sales.", parameters_schema: ROWS, python_code: CHART_PY },
          },
        ],
      },
      { toolCalls: [{ name: "sales_chart", args: ROWS_INPUT }] },
      { text: "Here is the chart." },
    ]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
    await page.getByRole("button", { name: "Open the reasoning panel" }).focus();
    await page.keyboard.press("Enter");

    const printed = page.getByLabel("What the sales_chart call printed");
    await expect(printed).toHaveText("2 rows, total 8");
    const chart = page.getByRole("img", { name: "Image 1 of the sales_chart result" });
    await expect(chart).toBeVisible();
    expect(await chart.getAttribute("src")).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    // The chart is an image, not a picture of nothing: the browser decoded it to its drawn size.
    expect(await chart.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(100);
    await expect(page.getByText("| month   |   sales |").first()).toBeAttached();

    // By keyboard: the printed lines are a stop of their own, to scroll and read.
    await tabTo(page, /^What the sales_chart call printed$/);
    expect(await focusedName(page)).toBe("What the sales_chart call printed");
    await expectAccessible(page, `a Python tool's chart and printed lines (${colorScheme}, 390 px)`);
  });
}
