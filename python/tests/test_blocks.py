"""Building blocks without TOML."""

import pytest

import packlab


def test_rho_star_and_the_guaranteed_regions():
    # Fig. 3(a): sizes 0.45 and 0.55 pair up on a server, so rho* = 1; K_RED holds one
    # 0.55 or two 0.45 (each rounded up to 1/2) per server: 2/3 of the traffic
    two = [(0.45, 0.5), (0.55, 0.5)]
    assert packlab.rho_star(two)["rho"] == pytest.approx(1.0)
    assert packlab.rho_star(two)["mix"] == [([1, 1], 1.0)]
    assert packlab.rho_kred(two, 4)["rho"] == pytest.approx(2 / 3)
    assert packlab.rho_dyadic(two, 4)["rho"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match=r"sizes\[1\]: expected a size in \(0, 1\]"):
        packlab.rho_star([(0.5, 0.5), (1.5, 0.5)])
    with pytest.raises(ValueError, match="J: expected an integer in"):
        packlab.rho_kred(two, 0)


def test_the_bracket_narrows_around_rho_star():
    steps = packlab.rho_star_bracket(0.1, 0.5, 128)
    assert [s[0] for s in steps] == [8, 16, 32, 64, 128]
    lows, highs = [s[1] for s in steps], [s[2] for s in steps]
    assert lows == sorted(lows) and highs == sorted(highs, reverse=True)
    assert all(lo <= hi for lo, hi in zip(lows, highs))
    with pytest.raises(ValueError, match="low < high"):
        packlab.rho_star_bracket(0.5, 0.1)


def test_a_single_run():
    r = packlab.simulate("fifo-ff", [(0.3, 0.5), (0.6, 0.5)], 20.0, 10, 0.5, 100_000, seed=3)
    assert r["verdict"] == "stable"
    assert 0.4 < r["utilization"] < 0.6
    again = packlab.simulate("fifo-ff", [(0.3, 0.5), (0.6, 0.5)], 20.0, 10, 0.5, 100_000, seed=3)
    assert r == again
    with pytest.raises(packlab.PacklabError, match="policy \"nope\""):
        packlab.simulate("nope", [(0.3, 1.0)], 20.0, 10, 0.5, 1_000)
