"""Self-play opponent pool weights (training/ppo/self_play_pool.py)."""

from __future__ import annotations

import pytest

from perikles_env.training.ppo.config import OpponentSection
from perikles_env.training.ppo.self_play_pool import SelfPlayPool


def section(**kw):
    base = {
        "weights": {"random": 0.4, "heuristic": 0.2, "self_latest": 0.3, "self_past": 0.1},
        "snapshot_every": 100,
        "max_snapshots": 3,
    }
    return OpponentSection(**{**base, **kw})


def test_without_snapshots_only_fixed_opponents_remain():
    pool = SelfPlayPool(section()).pool()
    assert dict(zip(pool.specs, pool.probabilities, strict=True)) == pytest.approx(
        {"random": 2 / 3, "heuristic": 1 / 3}
    )


def test_latest_and_past_snapshots_get_their_weights():
    sp = SelfPlayPool(section())
    for name in ("a", "b", "c"):
        sp.add_snapshot(f"/snap/{name}.zip")
    pool = dict(zip(sp.pool().specs, sp.pool().weights, strict=True))
    assert pool["ppo:/snap/c.zip,deterministic=false"] == pytest.approx(0.3)
    assert pool["ppo:/snap/a.zip,deterministic=false"] == pytest.approx(0.05)
    assert pool["ppo:/snap/b.zip,deterministic=false"] == pytest.approx(0.05)
    assert pool["random"] == pytest.approx(0.4)


def test_one_snapshot_has_no_past_weight_and_oldest_is_dropped():
    sp = SelfPlayPool(section(snapshot_deterministic=True))
    sp.add_snapshot("/s/1.zip")
    assert set(sp.pool().specs) == {"random", "heuristic", "ppo:/s/1.zip"}
    dropped = [p for i in range(2, 6) for p in sp.add_snapshot(f"/s/{i}.zip")]
    assert dropped == ["/s/1.zip", "/s/2.zip"]
    assert sp.snapshots == ["/s/3.zip", "/s/4.zip", "/s/5.zip"]


def test_restore_keeps_only_existing_snapshot_files(tmp_path):
    kept = tmp_path / "k.zip"
    kept.write_bytes(b"x")
    sp = SelfPlayPool(section())
    sp.restore({"snapshots": [str(tmp_path / "gone.zip"), str(kept)]})
    assert sp.snapshots == [str(kept)]
