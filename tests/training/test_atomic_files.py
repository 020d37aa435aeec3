"""Atomic writes (``perikles_env/files.py``): a write that dies midway
leaves the previous file whole and no temporary file behind."""

from __future__ import annotations

import os

import pytest

from perikles_env.files import atomic_write, write_text


def test_replace_and_failed_write_keep_a_whole_file(tmp_path):
    path = tmp_path / "sub" / "report.md"
    write_text(path, "first\n")
    write_text(path, "second\n")
    assert path.read_text() == "second\n"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # like any new file, not private

    def dies_midway(f):
        f.write(b"half of a new rep")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(path, dies_midway)
    assert path.read_text() == "second\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.md"]


def test_checkpoint_write_that_dies_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    """A model file is written through the same path: interrupted while zipping, the
    checkpoint on disk is still the previous, readable one."""
    import zipfile

    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from perikles_env.agents.ppo_file import read_model, save_model
    from perikles_env.single_agent import PeriklesSingleAgentEnv

    env = PeriklesSingleAgentEnv(num_players=3)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=16, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    path = tmp_path / "ckpt.zip"
    save_model(path, model.policy, (), 16, optimizer=model.policy.optimizer)
    before = path.read_bytes()

    def broken(self, name, data, *args, **kwargs):  # noqa: ANN001
        raise KeyboardInterrupt("SIGTERM")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", broken)
    with pytest.raises(KeyboardInterrupt):
        save_model(path, model.policy, (), 32, optimizer=model.policy.optimizer)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert read_model(path).meta["num_timesteps"] == 16
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.zip"]
