"""``pref serve --processes N`` (``service.cli.supervise``): the arguments of each child."""

from __future__ import annotations

import argparse

from service.cli.supervise import child_args


def test_only_the_first_child_process_runs_the_keeper() -> None:
    args = argparse.Namespace(no_projections=False, no_keeper=False, metrics_port=None)
    assert [child_args(args, i).no_keeper for i in range(3)] == [False, True, True]
    args.no_keeper = True
    assert child_args(args, 0).no_keeper
