"""Which source an image carries: the package hash the VM tests compare before they boot a guest."""

from __future__ import annotations

import json
from pathlib import Path

from simbridge._vm._image import deps_hash, image_is_current, package_hash


def _tree(root: Path) -> Path:
    for top in ("simbridge", "adapters", "verifiers", "tasks"):
        (root / top).mkdir(parents=True)
    (root / "simbridge/__init__.py").write_text("x = 1\n")
    (root / "adapters/jsbsim.py").write_text("cockpit = 1\n")
    (root / "tasks/T09.yaml").write_text("id: T09\n")
    (root / "pyproject.toml").write_text("[project]\nname = 'simbridge'\n")
    return root


def test_the_hash_follows_content_not_links_or_bytecode(tmp_path):
    a = _tree(tmp_path / "a")
    h = package_hash(a)
    (a / "simbridge/adapters").symlink_to(a / "adapters")  # the editable install's links
    (a / "simbridge/__pycache__").mkdir()
    (a / "simbridge/__pycache__/x.cpython-311.pyc").write_bytes(b"\0")
    assert package_hash(a) == h
    assert package_hash(_tree(tmp_path / "b")) == h  # a clean clone with the same files
    (a / "adapters/jsbsim.py").write_text("cockpit = 2\n")  # guest-side code changed
    assert package_hash(a) != h
    assert deps_hash(a, "sim") != deps_hash(a, "sim,drive")


def test_an_image_is_current_only_for_the_source_it_was_made_from(tmp_path):
    src, out = _tree(tmp_path / "src"), tmp_path / "image"
    out.mkdir()
    assert not image_is_current(out, src)  # no image at all
    (out / "base.qcow2").write_bytes(b"")
    (out / "image.json").write_text(json.dumps({"package_sha256": package_hash(src)}))
    assert image_is_current(out, src)
    (src / "verifiers/steep_turn.py").write_text("def verify(): ...\n")
    assert not image_is_current(out, src)
    (out / "image.json").write_text("{not json")
    assert not image_is_current(out, src)
