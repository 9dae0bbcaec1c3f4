"""Which promodesk ran a draw: the version stored on the draw when it starts (DRAWS.md §6,
"software"). settings.PROMODESK_VERSION (the PROMODESK_VERSION environment variable: a release
or a commit) when the deployment sets it; else the commit of the checkout, read once from
.git/HEAD (a worktree's .git file, a loose or packed ref); else "unknown"."""

from functools import cache
from pathlib import Path

from django.conf import settings

UNKNOWN = "unknown"


def _git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():  # a worktree: "gitdir: /path/to/.git/worktrees/name"
        text = dot_git.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            path = Path(text.removeprefix("gitdir:").strip())
            return path if path.is_absolute() else (root / path).resolve()
    return None


def _ref_commit(git_dir: Path, ref: str) -> str | None:
    common = git_dir
    commondir = git_dir / "commondir"
    if commondir.is_file():
        common = (git_dir / commondir.read_text(encoding="utf-8").strip()).resolve()
    for base in (git_dir, common):
        loose = base / ref
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    return None


def git_commit(root: Path) -> str | None:
    """The commit checked out at `root`, or None when it cannot be read."""
    try:
        git_dir = _git_dir(root)
        if git_dir is None:
            return None
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        commit = _ref_commit(git_dir, head.removeprefix("ref:").strip()) if head.startswith("ref:") else head
    except OSError:
        return None
    if commit and len(commit) == 40 and all(c in "0123456789abcdef" for c in commit):
        return commit
    return None


@cache
def _checkout_commit() -> str | None:
    return git_commit(Path(settings.BASE_DIR))


def software_version() -> str:
    """What a draw started now records as the software's version (at most 80 characters)."""
    configured = (getattr(settings, "PROMODESK_VERSION", "") or "").strip()
    return (configured or _checkout_commit() or UNKNOWN)[:80]
