"""The draw-record spec ships with the project (docs/draw-records.md) so an auditor outside can
open it, and it is kept equal to the design's DRAWS.md."""

import hashlib
from pathlib import Path

from django.conf import settings

SHIPPED = Path(settings.BASE_DIR) / "docs" / "draw-records.md"
# ../shared/design/DRAWS.md from the repository (or from a checkout nested deeper, a worktree).
DESIGN = next(
    (
        folder / "shared" / "design" / "DRAWS.md"
        for folder in Path(settings.BASE_DIR).resolve().parents
        if (folder / "shared" / "design" / "DRAWS.md").is_file()
    ),
    None,
)
# The shipped copy's SHA-256: when ../shared/design/ is not there to compare with, the copy is
# still held to the text that was compared (update both with the design, never the copy alone).
SHIPPED_SHA256 = "2764fbee46710ab82bf067881012d6201aa720eb7fe4439bc772d87f4e313f9e"


def test_the_shipped_spec_is_the_design_s_draws_md():
    shipped = SHIPPED.read_bytes()
    if DESIGN is not None:
        assert shipped == DESIGN.read_bytes(), "docs/draw-records.md differs from ../shared/design/DRAWS.md: copy it"
    assert hashlib.sha256(shipped).hexdigest() == SHIPPED_SHA256, "update SHIPPED_SHA256 with the copy"


def test_the_shipped_spec_describes_format_2():
    text = SHIPPED.read_text(encoding="utf-8")
    assert '"format": 2' in text and "redraw_already_drawn" in text
