import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MiniLine } from "./mini-line";

const points = [
  { t: 0, v: 100 },
  { t: 10, v: null },
  { t: 20, v: 50 },
  { t: 30, v: 0 },
];

describe("MiniLine", () => {
  it("draws the line with its gap, one dashed line per marked bucket inside the window, and its name", () => {
    const html = renderToStaticMarkup(<MiniLine points={points} marks={[20, 20, 25, 99]} label="Hit rate of w1" />);
    expect(html).toContain('role="img"');
    expect(html).toContain('aria-label="Hit rate of w1"');
    expect(html).toContain('viewBox="0 0 4 56"');
    // Top at 3 px, 50 px tall: 100 → 3, 50 → 28, 0 → 53; the lone first point is a short stroke.
    expect(html).toContain('d="M0.2 3H0.8M2.5 28L3.5 53"');
    expect(html.match(/stroke-dasharray/g)).toHaveLength(1);
    expect(html).toContain('x1="2.5"');
  });

  it("is hidden from assistive technology without a name, and scales to its largest value with max auto", () => {
    const html = renderToStaticMarkup(
      <MiniLine
        points={[
          { t: 0, v: 2 },
          { t: 1, v: 4 },
        ]}
        max="auto"
        height={36}
      />,
    );
    expect(html).toContain('aria-hidden="true"');
    expect(html).not.toContain("role=");
    // 30 px tall from 3 px: 4 (the largest) at the top, 2 halfway.
    expect(html).toContain('d="M0.5 18L1.5 3"');
  });

  it("draws nothing but the frame for no points", () => {
    const html = renderToStaticMarkup(<MiniLine points={[]} label="empty" />);
    expect(html).toContain('viewBox="0 0 1 56"');
    expect(html).toContain('d=""');
  });
});
