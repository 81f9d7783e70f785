"""A netns link's reservation record is written to a file created new (O_EXCL, O_NOFOLLOW): a
symlink planted at its predictable temporary name is removed, never written through."""

from __future__ import annotations

import pytest

from simbridge._isolation._netns import write_new_file


def test_a_planted_symlink_is_replaced_not_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    tmp = tmp_path / ".sb-0001.1234.tmp"
    tmp.symlink_to(victim)
    write_new_file(tmp, '{"name": "sb-0001"}')
    assert victim.read_text() == "precious\n"
    assert not tmp.is_symlink() and tmp.read_text() == '{"name": "sb-0001"}'
    dangling = tmp_path / "nowhere"
    tmp.unlink()
    tmp.symlink_to(dangling)
    write_new_file(tmp, "x")
    assert not dangling.exists() and tmp.read_text() == "x"


def test_a_directory_in_the_way_is_an_error_not_a_write(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    with pytest.raises(OSError):
        write_new_file(d, "x")
