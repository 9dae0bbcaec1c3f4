"""Checks run in the browser on a page at the desk's screen size (SCREENS.md rule 8), shared by
the layout test and the screenshot script."""

# Every visible link and button whose text is below 4.5:1 against what is painted behind it
# (the first ancestor with a background colour, semi-transparent layers blended in).
LOW_CONTRAST = """
() => {
  function rgba(text) {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  function over(top, bottom) {
    const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  }
  function background(element) {
    const layers = [];
    for (let e = element; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let colour = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) colour = over(layers[i], colour);
    return colour;
  }
  function luminance(c) {
    const [r, g, b] = c.slice(0, 3).map(v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }
  const found = [];
  for (const e of document.querySelectorAll("a, button, .btn, .nav-link, input[type=submit]")) {
    const box = e.getBoundingClientRect();
    if (!box.width || !box.height || e.disabled || !e.textContent.trim()) continue;
    const folded = "[hidden], .dropdown-menu:not(.show), .collapse:not(.show):not(.navbar-collapse)";
    if (getComputedStyle(e).visibility === "hidden" || e.closest(folded)) continue;
    const bg = background(e);
    const fg = over(rgba(getComputedStyle(e).color), bg);
    const [l1, l2] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    if (ratio < 4.5) found.push(`${e.textContent.trim().slice(0, 40)} (${ratio.toFixed(2)}:1)`);
  }
  return found;
}
"""

# Sideways scrolling, and a header row that wrapped onto a second line.
LAYOUT_PROBLEMS = """
() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1) {
    problems.push(`scrolls sideways: ${document.documentElement.scrollWidth}px wide in ${width}px`);
  }
  for (const row of document.querySelectorAll(".desk-header .navbar")) {
    const items = [...row.querySelectorAll(".navbar-brand, .swipe-form, .dropdown, .nav-link")];
    const middles = items.filter(i => i.getBoundingClientRect().height).map(i => {
      const box = i.getBoundingClientRect();
      return box.top + box.height / 2;
    });
    if (middles.length && Math.max(...middles) - Math.min(...middles) > 12) {
      problems.push(`header row wraps: ${items.map(i => i.textContent.trim().slice(0, 20)).join(" | ")}`);
    }
  }
  return problems;
}
"""
