"""The documents of the book's table of contents, for the tests that check every page."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def toc_files() -> list[str]:
    """Every document of ``_toc.yml`` (root first), as written there."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return files
